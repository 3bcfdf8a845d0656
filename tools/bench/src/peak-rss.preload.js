/*
 * Preloaded into the benchmarked service (NODE_OPTIONS=--require) by reconcile-bench.ts: keeps the
 * process's peak resident set size so far (kilobytes, from getrusage) in BENCH_PEAK_RSS_FILE,
 * which the benchmark reads once the work is done. Plain JS: it loads before the TypeScript hook.
 */
const { renameSync, writeFileSync } = require('node:fs');

const file = process.env.BENCH_PEAK_RSS_FILE;
if (file) {
  // Written aside and renamed, so a reader never sees a half-written file.
  setInterval(() => {
    writeFileSync(`${file}.tmp`, String(process.resourceUsage().maxRSS));
    renameSync(`${file}.tmp`, file);
  }, 200).unref();
}
