/*
 * Preloaded into the benchmarked service (NODE_OPTIONS=--require) by reconcile-bench.ts: keeps the
 * process's peak resident set size so far (kilobytes, from getrusage) in BENCH_PEAK_RSS_FILE,
 * which the benchmark reads once the work is done. Plain JS: it loads before the TypeScript hook.
 */
const { writeFileSync } = require('node:fs');

const file = process.env.BENCH_PEAK_RSS_FILE;
if (file) {
  setInterval(() => writeFileSync(file, String(process.resourceUsage().maxRSS)), 200).unref();
}
