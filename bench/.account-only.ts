import { forEachEngine, benchEngines } from "/work/main/bench/lib/engines.js";
import { accountBench } from "/work/main/bench/stats-account.js";
const ok = await forEachEngine("stats-account", benchEngines(), accountBench);
console.log("all met:", ok);
