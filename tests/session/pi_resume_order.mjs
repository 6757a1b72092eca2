// The order in which pi's /resume picker (SessionSelectorComponent, threaded sort) lists
// sessions for each query. Usage: node pi_resume_order.mjs PI_PACKAGE_DIR < {sessions, queries}
// Prints {query: [[path, depth], ...]} as JSON.
import { pathToFileURL } from "node:url";
import { readFileSync } from "node:fs";

const [pkg] = process.argv.slice(2);
const selector = await import(
  pathToFileURL(`${pkg}/dist/modes/interactive/components/session-selector.js`).href
);
const input = JSON.parse(readFileSync(0, "utf8"));
const sessions = input.sessions.map((s) => ({
  path: s.path,
  id: s.id,
  cwd: s.cwd,
  name: s.name ?? undefined,
  parentSessionPath: s.parent ?? undefined,
  created: new Date(0),
  modified: new Date(s.modified),
  messageCount: 1,
  firstMessage: s.text,
  allMessagesText: s.text,
}));
const noop = () => {};
const picker = new selector.SessionSelectorComponent(async () => [], async () => [], noop, noop, noop, noop, {});
const list = picker.sessionList;
list.setSessions(sessions, false);
const out = {};
for (const q of input.queries) {
  list.filterSessions(q);
  out[q] = list.filteredSessions.map((n) => [n.session.path, n.depth]);
}
process.stdout.write(JSON.stringify(out));
