/*
 * Preloaded into the benchmarked service (NODE_OPTIONS=--require) by ledger-bench.ts: counts the
 * service's database round trips (every pg Client#query call is one) and keeps the running total
 * in BENCH_ROUND_TRIPS_FILE, which the benchmark reads between scenarios. Plain JS because it
 * loads before the TypeScript register hook.
 */
const { writeFileSync } = require('node:fs');
const { Client } = require('pg');

const file = process.env.BENCH_ROUND_TRIPS_FILE;
if (file) {
  let count = 0;
  const query = Client.prototype.query;
  Client.prototype.query = function countedQuery(...args) {
    count += 1;
    return query.apply(this, args);
  };
  setInterval(() => writeFileSync(file, String(count)), 100).unref();
}
