// pi's own SessionManager as the judge of `loomtui export-branch` and `loomtui context`.
// Usage: node pi_fork_context.mjs PACKAGE_DIR FILE [--fork ID]... [--context ID]... [--all-contexts]
// PACKAGE_DIR is an installed pi package (its dist/ is imported). Prints one JSON object:
//   leafId        the leaf pi takes on open
//   forks[ID]     {header, entries}: what createBranchedSession(ID) writes (pi's /fork and /clone)
//   contexts[ID]  {messages, thinkingLevel, model}: buildSessionContext with ID as the leaf
//                 ("" is the leaf pi opens at; --all-contexts tries every entry of the file)
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { pathToFileURL } from "node:url";

const [pkg, src, ...rest] = process.argv.slice(2);
const { SessionManager, buildSessionContext } = await import(
  pathToFileURL(join(pkg, "dist", "core", "session-manager.js")).href
);
const forks = [];
const contexts = [""];
let allContexts = false;
for (let i = 0; i < rest.length; i++) {
  if (rest[i] === "--fork") forks.push(rest[++i]);
  else if (rest[i] === "--context") contexts.push(rest[++i]);
  else if (rest[i] === "--all-contexts") allContexts = true;
}

// pi rewrites old versions (and a missing final newline) in place: every open is of a fresh copy,
// in a folder removed when the script ends (a run leaves nothing in the temporary directory)
const made = [];
process.on("exit", () => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});
function openCopy() {
  const dir = mkdtempSync(join(tmpdir(), "pi-fork-context-"));
  made.push(dir);
  const path = join(dir, basename(src));
  copyFileSync(src, path);
  return SessionManager.open(path, dir);
}

const sm = openCopy();
const out = { leafId: sm.getLeafId(), forks: {}, contexts: {} };
const entries = sm.getEntries();
const byId = new Map(entries.map((e) => [e.id, e]));
if (allContexts) for (const e of entries) contexts.push(e.id);
for (const id of contexts) {
  out.contexts[id] = id === "" ? sm.buildSessionContext() : buildSessionContext(entries, id, byId);
}
for (const id of forks) {
  const fork = openCopy();
  try {
    fork.createBranchedSession(id);
    // pi defers writing a branch without a conversation: its in-memory entries are what it writes
    const lines = JSON.parse(JSON.stringify(fork.fileEntries));
    out.forks[id] = { header: lines[0], entries: lines.slice(1) };
  } catch (err) {
    out.forks[id] = { error: String(err) };
  }
}
process.stdout.write(JSON.stringify(out));
