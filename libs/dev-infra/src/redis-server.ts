import { spawn, ChildProcess } from 'node:child_process';
import { createConnection } from 'node:net';
import { accessSync, constants } from 'node:fs';
import path from 'node:path';

/** True when something answers PING with PONG at `url`. */
export function redisAnswers(url: string, timeoutMs = 1000): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = createConnection({ host: hostname, port: Number(port || 6379) });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.on('error', () => done(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => done(chunk.toString().startsWith('+PONG')));
  });
}

export function findOnPath(binary: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const candidate = path.join(dir, binary);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this folder
    }
  }
  return undefined;
}

export interface RedisHandle {
  url: string;
  stop(): Promise<void>;
}

/**
 * Uses the Redis at `url` when it answers; otherwise starts `redis-server` on that URL's port
 * (memory only). Returns undefined when Redis is down and no redis-server binary is available.
 */
export async function ensureRedis(url: string): Promise<RedisHandle | undefined> {
  if (await redisAnswers(url)) return { url, stop: async () => undefined };
  const binary = findOnPath('redis-server');
  if (!binary) return undefined;
  const { hostname, port } = new URL(url);
  const child: ChildProcess = spawn(
    binary,
    ['--port', port || '6379', '--bind', hostname, '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  for (let i = 0; i < 50; i++) {
    if (await redisAnswers(url, 200)) {
      return {
        url,
        // Settled on exit even when it died before (killed by a test, say); SIGKILL if SIGTERM is not enough.
        stop: () =>
          new Promise((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            const force = setTimeout(() => child.kill('SIGKILL'), 5_000);
            child.once('exit', () => {
              clearTimeout(force);
              resolve();
            });
            child.kill('SIGTERM');
          }),
      };
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  return undefined;
}
