import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

function adminUrl(): string {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('TEST_DATABASE_URL is unset: run tests through jest (its global setup provides it)');
  return url;
}

async function withAdmin<T>(fn: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: adminUrl() });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/** A fresh, empty database for one test file, so suites run in parallel without sharing rows. */
export async function createTestDatabase(label: string): Promise<TestDatabase> {
  const name = `test_${label.replace(/[^a-z0-9]/gi, '_').toLowerCase()}_${randomBytes(4).toString('hex')}`;
  await withAdmin(async (c) => {
    await c.query(`CREATE DATABASE "${name}"`);
    // Tests need atomicity and isolation, not durability: without waiting for fsync at commit, row
    // locks are held for microseconds, so parallel suites on one disk do not stall each other.
    await c.query(`ALTER DATABASE "${name}" SET synchronous_commit = off`);
  });
  const url = new URL(adminUrl());
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => withAdmin((c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(() => undefined),
  };
}

/** A random secret key of the form the services' *_SECRET_KEY settings expect. */
export function testSecretKey(): string {
  return randomBytes(32).toString('base64');
}

export function testRedisUrl(): string {
  return process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
}
