import { createServer } from 'node:http';
import { createLogger, loadConfig, stopWhenParentGoes } from '@bursar/service-kit';
import { DevIdentitySettings } from '../config/dev-identity.settings';
import { createDevIdentityProvider } from './dev-identity-provider';
import { tokenCommand } from './dev-identity-token';
import { devIdentityHandler } from './dev-identity-sign-in';

/** `node dist/apps/control/src/dev-identity/main.js`: the development identity provider, loopback only. */
async function main(): Promise<void> {
  const settings = loadConfig(DevIdentitySettings, process.env);
  const logger = createLogger('dev-identity', settings.LOG_LEVEL);
  const issuer = settings.DEV_IDENTITY_ISSUER ?? `http://127.0.0.1:${settings.DEV_IDENTITY_PORT}`;
  const provider = await createDevIdentityProvider({
    issuer,
    secret: settings.DEV_IDENTITY_SECRET,
    audience: settings.DEV_IDENTITY_AUDIENCE,
    consoleRedirectUris: settings.DEV_IDENTITY_CONSOLE_REDIRECT_URIS.split(','),
    accessTokenTtlSeconds: settings.DEV_IDENTITY_ACCESS_TOKEN_TTL_SECONDS,
  });
  const server = createServer(devIdentityHandler(provider, settings.DEV_IDENTITY_SECRET));
  await new Promise<void>((resolve) => server.listen(settings.DEV_IDENTITY_PORT, '127.0.0.1', resolve));
  logger.info({ issuer, token: tokenCommand(issuer, 'you@example.com', settings.DEV_IDENTITY_SECRET) }, 'development identity provider up');
  const stop = () => server.close(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  stopWhenParentGoes();
}

main().catch((err: unknown) => {
  process.stderr.write(`dev-identity: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
