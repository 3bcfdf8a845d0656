import { parseArgs } from 'node:util';
import { DataSource } from 'typeorm';
import { generateSecretKey, RootKeys } from '@bursar/crypto';
import { resealAll } from '@bursar/service-kit';
import { LEDGER_SEALED_COLUMNS } from './ledger-sealed-columns';
import { MODES, Mode } from '../common/mode';
import { Pagination } from '../common/pagination';
import { LedgersRepository } from '../ledgers/ledgers.repository';
import { LedgersService } from '../ledgers/ledgers.service';
import { CLIENT_SECRET_NOTE, presentOauthClient } from '../oauth-clients/oauth-client.presenter';
import { OauthClientsRepository } from '../oauth-clients/oauth-clients.repository';
import { OauthClientsService } from '../oauth-clients/oauth-clients.service';
import { ClientScope, CLIENT_SCOPES, isClientScope } from '../oauth-clients/oauth-scopes';
import { presentOrganization } from '../organizations/organization.presenter';
import { OrganizationsRepository } from '../organizations/organizations.repository';
import { OrganizationsService } from '../organizations/organizations.service';
import { isPlan, PLANS } from '../organizations/plans';

export const ADMIN_USAGE = [
  'usage: pnpm ledger:admin <command> [options]',
  '  create-organization --name <name>',
  '  create-ledger --organization <id> --name <name> --mode test|live',
  '  create-client --organization <id> --ledger <id> --mode test|live --scopes <a,b> [--name <name>]',
  '  suspend-organization --organization <id>      (read-only: writes answer 403 tenant_suspended)',
  '  unsuspend-organization --organization <id>',
  `  set-plan --organization <id> --plan ${PLANS.join('|')}`,
  '  rotate-secret-key [--batch-size <n>]    re-seals every sealed row not under LEDGER_SECRET_KEY; opens the old',
  '                                          ones with LEDGER_PREVIOUS_SECRET_KEYS (docs/security.md)',
].join('\n');

/** Raised for a bad command line; the entry point prints it with the usage. */
export class AdminUsageError extends Error {}

function required(values: Record<string, string | boolean | undefined>, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || !value) throw new AdminUsageError(`--${name} is required`);
  return value;
}

function mode(value: string): Mode {
  if (!(MODES as readonly string[]).includes(value)) throw new AdminUsageError('--mode must be test or live');
  return value as Mode;
}

function scopes(value: string): ClientScope[] {
  const list = value.split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = list.filter((s) => !isClientScope(s));
  if (!list.length || unknown.length) {
    throw new AdminUsageError(`--scopes must be a comma list of ${CLIENT_SCOPES.join(', ')}`);
  }
  return list as ClientScope[];
}

function batchSize(value: string | undefined): number {
  const n = Number(value ?? 200);
  if (!Number.isInteger(n) || n < 1 || n > 10_000) throw new AdminUsageError('--batch-size must be an integer from 1 to 10000');
  return n;
}

/** Runs one operator command against a migrated database and returns what to print as JSON. */
export async function runLedgerAdmin(argv: string[], dataSource: DataSource, keys?: RootKeys): Promise<Record<string, unknown>> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      organization: { type: 'string' },
      ledger: { type: 'string' },
      mode: { type: 'string' },
      scopes: { type: 'string' },
      plan: { type: 'string' },
      'batch-size': { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) return { usage: ADMIN_USAGE.split('\n') };
  const organizations = new OrganizationsService(new OrganizationsRepository(dataSource));
  // The CLI lists nothing, so a throwaway cursor key suffices and it needs no service secret.
  const pagination = new Pagination({ rootKeys: new RootKeys(generateSecretKey()) });
  const ledgers = new LedgersService(new LedgersRepository(dataSource), pagination);
  const clients = new OauthClientsService(new OauthClientsRepository(dataSource), ledgers, pagination);

  switch (positionals[0]) {
    case 'create-organization': {
      const organization = await organizations.create(required(values, 'name'));
      return { object: 'organization', id: organization.id, name: organization.name };
    }
    case 'create-ledger': {
      const organization = await organizations.get(required(values, 'organization'));
      const scope = { organizationId: organization.id, mode: mode(required(values, 'mode')) };
      const ledger = await ledgers.create(scope, { name: required(values, 'name') });
      return { object: 'ledger', id: ledger.id, organization_id: ledger.organizationId, name: ledger.name, mode: ledger.mode };
    }
    case 'create-client': {
      const scope = { organizationId: required(values, 'organization'), mode: mode(required(values, 'mode')) };
      const { client, secret } = await clients.create(scope, {
        name: values.name ?? 'Operator-created client',
        ledgerId: required(values, 'ledger'),
        scopes: scopes(required(values, 'scopes')),
      });
      return {
        ...presentOauthClient(client),
        organization_id: client.organizationId,
        client_secret: secret,
        client_secret_note: CLIENT_SECRET_NOTE,
      };
    }
    case 'suspend-organization':
    case 'unsuspend-organization': {
      const at = positionals[0] === 'suspend-organization' ? new Date() : null;
      const organization = await organizations.suspend(required(values, 'organization'), at);
      return { ...presentOrganization(organization), suspended_at: organization.suspendedAt?.toISOString() ?? null };
    }
    case 'set-plan': {
      const plan = required(values, 'plan');
      if (!isPlan(plan)) throw new AdminUsageError(`--plan must be one of ${PLANS.join(', ')}`);
      return presentOrganization(await organizations.changePlan(required(values, 'organization'), plan));
    }
    case 'rotate-secret-key': {
      if (!keys) throw new AdminUsageError('rotate-secret-key needs LEDGER_SECRET_KEY (the new key) and LEDGER_PREVIOUS_SECRET_KEYS');
      return resealAll(dataSource, keys, LEDGER_SEALED_COLUMNS, batchSize(values['batch-size']));
    }
    default:
      throw new AdminUsageError(positionals[0] ? `unknown command ${positionals[0]}` : 'a command is required');
  }
}
