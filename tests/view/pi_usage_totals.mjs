// pi 1.6.0's own session totals of a file: its reader (loadEntriesFromFile) and the breakdown
// its /session and footer figures are built from (getUsageCostBreakdown), summed.
// Usage: node pi_usage_totals.mjs PI_PACKAGE_DIR FILE  ->  {"tokens": N, "cost": X}
import { pathToFileURL } from "node:url";

const [pkg, file] = process.argv.slice(2);
const sm = await import(pathToFileURL(`${pkg}/dist/core/session-manager.js`).href);
const totals = await import(pathToFileURL(`${pkg}/dist/core/usage-totals.js`).href);
const entries = sm.loadEntriesFromFile(file).filter((e) => e.type !== "session");
const rows = totals.getUsageCostBreakdown(entries);
process.stdout.write(JSON.stringify({
  tokens: rows.reduce((n, r) => n + r.tokens, 0),
  cost: rows.reduce((n, r) => n + r.cost, 0),
}));
