// Opens session files with pi's own SessionManager.open, in place (pi may append a newline),
// and asks pi's session discovery (findMostRecentSession, which looks for the header in a
// file's first MiB) about each file alone in its folder. Prints one JSON object per file:
// {file, opens, error, entries, appended (bytes pi added, as text), unchanged, discovered}.
// Usage: node pi_open_many.mjs PATH/TO/dist/core/session-manager.js FILE...
import { readFileSync } from "node:fs";
import { dirname } from "node:path";
import { pathToFileURL } from "node:url";

const [module, ...files] = process.argv.slice(2);
const sm = await import(pathToFileURL(module).href);
const out = [];
for (const file of files) {
  const before = readFileSync(file);
  const row = { file, discovered: sm.findMostRecentSession(dirname(file)) === file };
  try {
    const m = sm.SessionManager.open(file, dirname(file), "/oracle-cwd");
    row.opens = true;
    row.entries = m.getEntries().length;
  } catch (err) {
    row.opens = false;
    row.error = String(err);
  }
  const after = readFileSync(file);
  row.unchanged = after.equals(before);
  row.appended = after.length >= before.length && after.subarray(0, before.length).equals(before)
    ? after.subarray(before.length).toString("utf8") : null;
  out.push(row);
}
process.stdout.write(JSON.stringify(out));
