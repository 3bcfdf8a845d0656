import type { Client } from 'pg';

/**
 * What a Postgres restart does to an app's connections, done from a test: ends every session of
 * the current database whose application name matches `applicationName` (a LIKE pattern), except
 * `admin`'s own. Answers how many it ended.
 */
export async function terminateSessions(admin: Client, applicationName: string): Promise<number> {
  const { rows } = await admin.query(
    `SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity
     WHERE datname = current_database() AND pid <> pg_backend_pid() AND application_name LIKE $1`,
    [applicationName],
  );
  return rows[0].n;
}

/** Ends the sessions again every 40 ms until `until` (epoch ms); answers how many it ended in all. */
export async function terminateSessionsUntil(admin: Client, applicationName: string, until: number): Promise<number> {
  let ended = 0;
  while (Date.now() < until) {
    ended += await terminateSessions(admin, applicationName);
    await new Promise((r) => setTimeout(r, 40));
  }
  return ended;
}
