import { spawn, ChildProcess } from 'node:child_process';
import path from 'node:path';
import { buildIfStale, freePort } from '@bursar/dev-infra';
import { AppProcess, createTestDatabase, SWC_REGISTER, startAppProcess, testRedisUrl, testSecretKey, TestDatabase } from '@bursar/testing';

const root = path.resolve(__dirname, '../../..');
export const DEV_SECRET = 'console-dev-identity-secret';
export const AUDIENCE = 'urn:bursar:control';

function run(entry: string, env: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-r', SWC_REGISTER, path.join(root, entry)], {
      env: { PATH: process.env.PATH, LOG_LEVEL: 'silent', ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${entry} exited ${code}: ${stderr}`))));
  });
}

/** The development identity provider as a child process; resolves once its discovery document answers. */
async function startDevIdentity(redirectUris: string): Promise<{ issuer: string; stop(): Promise<void> }> {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(process.execPath, ['-r', SWC_REGISTER, path.join(root, 'apps/control/src/dev-identity/main.ts')], {
    env: {
      PATH: process.env.PATH,
      LOG_LEVEL: 'silent',
      DEV_IDENTITY_PORT: String(port),
      DEV_IDENTITY_SECRET: DEV_SECRET,
      DEV_IDENTITY_AUDIENCE: AUDIENCE,
      DEV_IDENTITY_CONSOLE_REDIRECT_URIS: redirectUris,
      // Short-lived, so the browser test sees the console refresh its token before expiry.
      DEV_IDENTITY_ACCESS_TOKEN_TTL_SECONDS: '10',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const deadline = Date.now() + 30_000;
  while (!(await fetch(`${issuer}/.well-known/openid-configuration`).then((r) => r.ok, () => false))) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error('dev identity provider did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    issuer,
    stop: () => new Promise<void>((resolve) => (child.exitCode !== null ? resolve() : (child.once('exit', () => resolve()), child.kill('SIGTERM')))),
  };
}

export interface ControlStack {
  controlUrl: string;
  issuer: string;
  stop(): Promise<void>;
}

/**
 * Control (migrated, on its own database) and the development identity provider as real child
 * processes, the way `pnpm start` runs them; `consoleOrigin` is what CORS and the sign-in redirect allow.
 */
export async function startControlStack(label: string, consoleOrigin: string): Promise<ControlStack> {
  const db: TestDatabase = await createTestDatabase(`console_${label}`);
  const identity = await startDevIdentity(`${consoleOrigin}/`);
  const env = {
    CONTROL_DATABASE_URL: db.url,
    CONTROL_SECRET_KEY: testSecretKey(),
    REDIS_URL: testRedisUrl(),
    NODE_ENV: 'test',
    COSIGN_ISSUER: 'http://bursar.test',
    IDENTITY_ISSUER: identity.issuer,
    IDENTITY_AUDIENCE: AUDIENCE,
    CORS_ALLOWED_ORIGINS: consoleOrigin,
  };
  await run('apps/control/src/migrate.ts', env);
  const control: AppProcess = await startAppProcess('apps/control/src/main.ts', 'CONTROL_PORT', env);
  return {
    controlUrl: `http://127.0.0.1:${control.port}`,
    issuer: identity.issuer,
    stop: async () => {
      await control.stop();
      await identity.stop();
      await db.drop();
    },
  };
}

export const CONSOLE_DIST = path.join(root, 'dist/console');

/** Builds the console (`pnpm build:console`) unless dist/console is newer than its sources. */
export function ensureConsoleBuilt(): void {
  buildIfStale({ sources: path.join(root, 'apps/console'), output: path.join(CONSOLE_DIST, 'index.html'), command: ['pnpm', '-s', 'build:console'], cwd: root });
}
