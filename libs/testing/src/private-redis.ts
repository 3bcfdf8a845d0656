import { ensureRedis, freePort, RedisHandle } from '@bursar/dev-infra';

/** A redis-server of the test's own, on a free port, that the test may stop and start again. */
export async function startPrivateRedis(port?: number): Promise<RedisHandle> {
  const url = `redis://127.0.0.1:${port ?? (await freePort())}`;
  const handle = await ensureRedis(url);
  if (!handle) throw new Error('redis-server is needed on the PATH for this test');
  return handle;
}
