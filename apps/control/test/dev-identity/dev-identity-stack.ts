import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createDevIdentityProvider, DevIdentityOptions } from '../../src/dev-identity/dev-identity-provider';
import { devIdentityHandler } from '../../src/dev-identity/dev-identity-sign-in';
import { ControlTestApp, startControlTestApp } from '../control-test-app';

export const DEV_IDENTITY_SECRET = 'dev-identity-secret-for-tests';
export const DEV_IDENTITY_AUDIENCE = 'urn:bursar:control';

export interface DevIdentityStack {
  issuer: string;
  t: ControlTestApp;
  close(): Promise<void>;
}

/** The development provider served as `pnpm start` serves it, on a loopback port, and a control app trusting it. */
export async function startDevIdentityStack(label: string, options: Pick<DevIdentityOptions, 'consoleRedirectUris'> = {}): Promise<DevIdentityStack> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = await createDevIdentityProvider({ issuer, secret: DEV_IDENTITY_SECRET, audience: DEV_IDENTITY_AUDIENCE, ...options });
  server.on('request', devIdentityHandler(provider, DEV_IDENTITY_SECRET));
  const t = await startControlTestApp(label, { IDENTITY_ISSUER: issuer, IDENTITY_AUDIENCE: DEV_IDENTITY_AUDIENCE });
  return {
    issuer,
    t,
    close: async () => {
      await t.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
