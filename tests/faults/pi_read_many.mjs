// Reads session files the way pi does (loadEntriesFromFile + migrateSessionEntries) in one
// node process; prints one JSON object per file: {file, ok, ids, parents, types}.
// Usage: node pi_read_many.mjs PATH/TO/dist/core/session-manager.js FILE...
import { pathToFileURL } from "node:url";

const [module, ...files] = process.argv.slice(2);
const sm = await import(pathToFileURL(module).href);
// Ids, types and versions of mutated files may be deeply nested values: print a flat marker
// for those, so the answer stays shallow enough for any JSON reader.
const flat = (v) => (v !== null && typeof v === "object" ? { nonScalar: Array.isArray(v) ? "array" : "object" } : v);
const out = [];
for (const file of files) {
  try {
    const entries = sm.loadEntriesFromFile(file);
    sm.migrateSessionEntries(entries);
    const body = entries.filter((e) => e.type !== "session");
    const header = entries.find((e) => e.type === "session");
    out.push({
      file,
      ok: entries.length > 0,
      version: header ? flat(header.version) : null,
      ids: body.map((e) => flat(e.id ?? null)),
      parents: body.map((e) => flat(e.parentId ?? null)),
      types: body.map((e) => flat(e.type ?? null)),
      roles: body.map((e) => (e.message && typeof e.message === "object" ? flat(e.message.role ?? null) : null)),
    });
  } catch (err) {
    out.push({ file, ok: false, error: String(err) });
  }
}
process.stdout.write(JSON.stringify(out));
