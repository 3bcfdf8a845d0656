import request from 'supertest';
import { DataSource } from 'typeorm';
import { runLedgerAdmin } from '../src/admin/ledger-admin';
import type { LedgerTestApp } from './ledger-test-app';

export interface TestClient {
  organizationId: string;
  ledgerId: string;
  clientId: string;
  clientSecret: string;
}

/** Bootstraps data the way an operator does, through the admin CLI's commands. */
export class LedgerFixtures {
  constructor(private readonly dataSource: DataSource) {}

  static of(t: LedgerTestApp): LedgerFixtures {
    return new LedgerFixtures(t.app.get(DataSource));
  }

  run(...argv: string[]): Promise<Record<string, unknown>> {
    return runLedgerAdmin(argv, this.dataSource);
  }

  async organization(name = 'Acme'): Promise<string> {
    return String((await this.run('create-organization', '--name', name)).id);
  }

  async ledger(organizationId: string, mode: 'test' | 'live', name = `${mode} books`): Promise<string> {
    return String((await this.run('create-ledger', '--organization', organizationId, '--name', name, '--mode', mode)).id);
  }

  /** A client on a fresh ledger; pass `organizationId` to add it to an existing organization. */
  async client(opts: { mode?: 'test' | 'live'; scopes?: string[]; organizationId?: string } = {}): Promise<TestClient> {
    const mode = opts.mode ?? 'test';
    const organizationId = opts.organizationId ?? (await this.organization());
    const ledgerId = await this.ledger(organizationId, mode);
    const scopes = (opts.scopes ?? ['ledger:read', 'ledger:write']).join(',');
    const out = await this.run(
      'create-client', '--organization', organizationId, '--ledger', ledgerId, '--mode', mode, '--scopes', scopes,
    );
    return { organizationId, ledgerId, clientId: String(out.client_id), clientSecret: String(out.client_secret) };
  }
}

/** An access token for `client` from the real token endpoint: of the test app, or of a ledger at `origin`. */
export async function accessToken(target: LedgerTestApp | string, client: TestClient, scope?: string): Promise<string> {
  const res = await request(typeof target === 'string' ? target : target.app.getHttpServer())
    .post('/oauth/token')
    .type('form')
    .auth(client.clientId, client.clientSecret)
    .send({ grant_type: 'client_credentials', ...(scope && { scope }) });
  if (res.status !== 200) throw new Error(`token request failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.access_token;
}
