import { createReadStream } from 'node:fs';
import { parseArgs } from 'node:util';
import { DataSource } from 'typeorm';
import { generateSecretKey, RootKeys } from '@bursar/crypto';
import { OperatorCommands, OperatorUsageError, resealAll } from '@bursar/service-kit';
import { LEDGER_SEALED_COLUMNS } from './ledger-sealed-columns';
import { verifyBooksLogs } from '../books-log/books-log-verifier';
import { LogKeysService } from '../books-log/log-keys.service';
import { LedgerSettings } from '../config/ledger.settings';
import { MODES, Mode, LedgerScope } from '../common/mode';
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
import { STATEMENT_FORMATS, StatementFormat } from '../statements/parsers/statement';
import { readStatementFile } from '../statements/statement-file';
import { presentStatementImport } from '../statements/statement-import.record';
import { createStatementsService } from '../statements/statements.factory';

export const LEDGER_ADMIN = 'pnpm ledger:admin';

export const LEDGER_ADMIN_COMMANDS: OperatorCommands = {
  'create-test-client': {
    options: '[--name <organization name>]',
    summary: 'an organization, a test-mode ledger and a client holding every scope, in one step: prints client_id, client_secret, ledger_id (and base_url)',
  },
  'create-organization': { options: '--name <name>', summary: 'a new organization' },
  'create-ledger': { options: '--organization <id> --name <name> --mode test|live', summary: 'a ledger of the organization' },
  'create-client': {
    options: '--organization <id> --ledger <id> --mode test|live --scopes <a,b> [--name <name>]',
    summary: 'an OAuth client on the ledger; its client_secret is printed once',
  },
  'suspend-organization': { options: '--organization <id>', summary: 'read-only: writes answer 403 tenant_suspended' },
  'unsuspend-organization': { options: '--organization <id>', summary: 'lifts a suspension' },
  'set-plan': { options: `--organization <id> --plan ${PLANS.join('|')}`, summary: 'changes the organization\'s plan' },
  'import-statement': {
    options: `--source <id> [--format ${STATEMENT_FORMATS.join('|')}] <file>`,
    summary: 'imports a bank statement file into the source, as POST /sources/{id}/statements does (gzip accepted)',
  },
  'verify-log': {
    options: '[--ledger <id>]',
    summary: "checks every ledger's books log (or one) against the rows it was sealed from and its signed checkpoints; exits 1 on any finding",
  },
  'rotate-log-key': {
    options: '[--activation-delay-ms <n>]',
    summary: "a new checkpoint signing key, published now and signing after the delay (default the service's LEDGER_LOG_KEY_ACTIVATION_DELAY_MS default)",
  },
  'rotate-secret-key': {
    options: '[--batch-size <n>]',
    summary: 're-seals every sealed row not under LEDGER_SECRET_KEY, opening the old ones with LEDGER_PREVIOUS_SECRET_KEYS (docs/security.md)',
  },
};

function required(values: Record<string, string | boolean | undefined>, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || !value) throw new OperatorUsageError(`--${name} is required`);
  return value;
}

function mode(value: string): Mode {
  if (!(MODES as readonly string[]).includes(value)) throw new OperatorUsageError('--mode must be test or live');
  return value as Mode;
}

function scopes(value: string): ClientScope[] {
  const list = value.split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = list.filter((s) => !isClientScope(s));
  if (!list.length || unknown.length) {
    throw new OperatorUsageError(`--scopes must be a comma list of ${CLIENT_SCOPES.join(', ')}`);
  }
  return list as ClientScope[];
}

function batchSize(value: string | undefined): number {
  const n = Number(value ?? 200);
  if (!Number.isInteger(n) || n < 1 || n > 10_000) throw new OperatorUsageError('--batch-size must be an integer from 1 to 10000');
  return n;
}

/** Where the printed credentials are used: the public base URL, when the settings know it. */
export interface LedgerAdminContext {
  keys?: RootKeys;
  publicUrl?: string;
}

/** The ledger scope a source lives in, so the import runs as that ledger's own writes do. */
async function sourceScope(dataSource: DataSource, sourceId: string): Promise<LedgerScope> {
  const [row] = /^[0-9a-f-]{36}$/i.test(sourceId)
    ? await dataSource.query(
        `SELECT l.id AS "ledgerId", l.organization_id AS "organizationId", l.mode FROM reconciliation_sources s JOIN ledgers l ON l.id = s.ledger_id WHERE s.id = $1`,
        [sourceId],
      )
    : [];
  if (!row) throw new OperatorUsageError(`no source ${sourceId}`);
  return row;
}

/** Runs one operator command against a migrated database and returns what to print as JSON. */
export async function runLedgerAdmin(argv: string[], dataSource: DataSource, context: LedgerAdminContext = {}): Promise<Record<string, unknown>> {
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
      source: { type: 'string' },
      format: { type: 'string' },
      'activation-delay-ms': { type: 'string' },
    },
  });
  const organizations = new OrganizationsService(new OrganizationsRepository(dataSource));
  // The CLI lists nothing, so a throwaway cursor key suffices and it needs no service secret.
  const pagination = new Pagination({ rootKeys: new RootKeys(generateSecretKey()) });
  const ledgers = new LedgersService(new LedgersRepository(dataSource), pagination);
  const clients = new OauthClientsService(new OauthClientsRepository(dataSource), ledgers, pagination);

  switch (positionals[0]) {
    case 'create-test-client': {
      const organization = await organizations.create(values.name ?? 'Local development');
      const scope = { organizationId: organization.id, mode: 'test' as const };
      const ledger = await ledgers.create(scope, { name: 'Test books' });
      const { client, secret } = await clients.create(scope, { name: 'Test client', ledgerId: ledger.id, scopes: [...CLIENT_SCOPES] });
      return {
        organization_id: organization.id,
        ledger_id: ledger.id,
        mode: ledger.mode,
        client_id: client.id,
        client_secret: secret,
        scopes: client.scopes,
        ...(context.publicUrl && { base_url: context.publicUrl, token_url: `${context.publicUrl}/oauth/token` }),
        client_secret_note: CLIENT_SECRET_NOTE,
      };
    }
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
      if (!isPlan(plan)) throw new OperatorUsageError(`--plan must be one of ${PLANS.join(', ')}`);
      return presentOrganization(await organizations.changePlan(required(values, 'organization'), plan));
    }
    case 'import-statement': {
      const file = positionals[1];
      if (!file) throw new OperatorUsageError('the statement file is required');
      const format = values.format;
      if (format !== undefined && !(STATEMENT_FORMATS as readonly string[]).includes(format)) {
        throw new OperatorUsageError(`--format must be one of ${STATEMENT_FORMATS.join(', ')}`);
      }
      const scope = await sourceScope(dataSource, required(values, 'source'));
      // Sources seal inbound credentials with the root keys; an import never opens them.
      const settings = { rootKeys: context.keys ?? new RootKeys(generateSecretKey()), publicUrl: context.publicUrl ?? '' };
      const statements = createStatementsService(dataSource, settings, pagination);
      return presentStatementImport(await statements.import(scope, required(values, 'source'), await readStatementFile(createReadStream(file)), format as StatementFormat | undefined));
    }
    case 'verify-log': {
      const ledger = values.ledger;
      if (ledger !== undefined && !/^[0-9a-f-]{36}$/i.test(ledger)) throw new OperatorUsageError('--ledger must be a ledger id');
      const logs = await verifyBooksLogs(dataSource, ledger);
      return { ok: logs.every((l) => l.ok), logs };
    }
    case 'rotate-log-key': {
      if (!context.keys) throw new OperatorUsageError('rotate-log-key needs LEDGER_SECRET_KEY, to seal the new key');
      const delay = Number(values['activation-delay-ms'] ?? new LedgerSettings().LEDGER_LOG_KEY_ACTIVATION_DELAY_MS);
      if (!Number.isSafeInteger(delay) || delay < 0) throw new OperatorUsageError('--activation-delay-ms must be a whole number of milliseconds');
      const keys = context.keys;
      const rotated = await new LogKeysService(dataSource, { rootKeys: keys, LEDGER_LOG_KEY_RELOAD_MS: 0, LEDGER_LOG_KEY_ACTIVATION_DELAY_MS: delay }).rotate();
      return { ...rotated };
    }
    case 'rotate-secret-key': {
      if (!context.keys) throw new OperatorUsageError('rotate-secret-key needs LEDGER_SECRET_KEY (the new key) and LEDGER_PREVIOUS_SECRET_KEYS');
      return resealAll(dataSource, context.keys, LEDGER_SEALED_COLUMNS, batchSize(values['batch-size']));
    }
    default:
      throw new OperatorUsageError(positionals[0] ? `unknown command ${positionals[0]}` : 'a command is required');
  }
}
