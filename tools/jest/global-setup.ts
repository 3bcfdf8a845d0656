import path from 'node:path';
import { rm } from 'node:fs/promises';
// globalSetup runs outside jest's module mapper, so the lib is reached by path.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { ensureRedis, freePort, startEmbeddedPostgres } from '../../libs/dev-infra/src';

/**
 * Test infrastructure, started once per jest run (jest calls this once per project, so it is
 * idempotent). Same rules as the launcher: TEST_DATABASE_URL (an admin URL; every suite creates
 * its own database there) or an embedded PostgreSQL; REDIS_URL or a redis-server we start.
 * Tests never use the launcher's databases or data folder.
 */
export default async function globalSetup(): Promise<void> {
  const state = globalThis as { __bursarTestInfra?: { stop: () => Promise<void> } };
  if (state.__bursarTestInfra) return;
  const stops: Array<() => Promise<void>> = [];

  if (!process.env.TEST_DATABASE_URL) {
    const dataDir = path.join(__dirname, '../../.data/test', `postgres-${process.pid}`);
    const pg = await startEmbeddedPostgres({ dataDir, port: await freePort(), persistent: false });
    process.env.TEST_DATABASE_URL = pg.adminUrl;
    stops.push(async () => {
      await pg.stop();
      await rm(dataDir, { recursive: true, force: true });
    });
  }

  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const redis = await ensureRedis(redisUrl);
  if (!redis) {
    throw new Error(`Redis does not answer at ${redisUrl} and redis-server is not on the PATH`);
  }
  process.env.REDIS_URL = redis.url;
  stops.push(redis.stop);

  state.__bursarTestInfra = {
    stop: async () => {
      for (const stop of stops.reverse()) await stop();
    },
  };
}
