// Summarises a .cpuprofile written by `npm run bench:redirect -- --profile` (or any node --cpu-prof).
// Usage: npx tsx bench/profile-summary.ts <file.cpuprofile> [top=30] [skip seconds=0 (leave start-up out)]
import { readFileSync } from "node:fs";
import { formatSummary, summarise } from "./lib/cpuprofile.js";

const file = process.argv[2];
if (!file) {
  console.error("usage: tsx bench/profile-summary.ts <file.cpuprofile> [top] [skip seconds]");
  process.exit(2);
}
const skip = Number(process.argv[4] ?? 0);
const start = skip > 0 ? (JSON.parse(readFileSync(file, "utf8")) as { startTime: number }).startTime : 0;
console.log(formatSummary(summarise(file, skip > 0 ? start + skip * 1e6 : null), Number(process.argv[3] ?? 30)));
