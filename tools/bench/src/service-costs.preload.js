/*
 * Preloaded into the benchmarked service (NODE_OPTIONS=--require) by ledger-bench.ts and
 * control-bench.ts: counts the service's database round trips (every pg Client#query call is one)
 * and keeps the running total in BENCH_ROUND_TRIPS_FILE, followed by the service's CPU time so far
 * (microseconds, user + system), which the benchmark reads between runs; with BENCH_CPU_PROF_FILE
 * it also records a CPU profile of the whole run (NODE_OPTIONS may not carry --cpu-prof). Plain JS
 * because it loads before the TypeScript register hook.
 */
const { writeFileSync } = require('node:fs');
const { Session } = require('node:inspector');
const { Client } = require('pg');

const profileFile = process.env.BENCH_CPU_PROF_FILE;
if (profileFile) {
  const session = new Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.start');
  // The benchmark stops the service with SIGTERM; session callbacks run synchronously.
  process.once('SIGTERM', () =>
    session.post('Profiler.stop', (err, result) => err || writeFileSync(profileFile, JSON.stringify(result.profile))),
  );
}

const file = process.env.BENCH_ROUND_TRIPS_FILE;
if (file) {
  let count = 0;
  const query = Client.prototype.query;
  Client.prototype.query = function countedQuery(...args) {
    count += 1;
    return query.apply(this, args);
  };
  setInterval(() => {
    const cpu = process.cpuUsage();
    writeFileSync(file, `${count} ${cpu.user + cpu.system}`);
  }, 500).unref();
}
