// Summarises a .cpuprofile written by `npm run bench:redirect -- --profile` (or any node --cpu-prof).
// Usage: npx tsx bench/profile-summary.ts <file.cpuprofile> [top]
import { formatSummary, summarise } from "./lib/cpuprofile.js";

const file = process.argv[2];
if (!file) {
  console.error("usage: tsx bench/profile-summary.ts <file.cpuprofile> [top]");
  process.exit(2);
}
console.log(formatSummary(summarise(file), Number(process.argv[3] ?? 30)));
