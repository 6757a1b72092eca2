// omp's own fuzzy matcher as the judge of loomtui's (loomtui/view/omp.py).
// Reads one JSON array of [query, text] pairs on stdin and prints whether omp's
// fuzzyMatch(query, text) matches for each. The matcher is @oh-my-pi/pi-tui's src/fuzzy.ts,
// which has no imports and runs under Node 22 (type stripping); OMP_PEER names its install
// (default /tmp/peer-omp, made by tests/view/ensure_omp_peer.sh).
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const peer = process.env.OMP_PEER || "/tmp/peer-omp";
const { fuzzyMatch } = await import(pathToFileURL(`${peer}/pi-tui/src/fuzzy.ts`).href);
const pairs = JSON.parse(readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(pairs.map(([query, text]) => fuzzyMatch(query, text).matches)));
