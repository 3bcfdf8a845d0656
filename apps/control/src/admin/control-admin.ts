import { parseArgs } from 'node:util';
import { DataSource } from 'typeorm';
import { OperatorCommands, OperatorUsageError, resealAll } from '@bursar/service-kit';
import { workspacesToVerify } from '../audit-log/audit-log.repository';
import { verifyAuditLog } from '../audit-log/audit-log.service';
import { CosignKeysService, CosignKeysSettings } from '../cosign/cosign-keys.service';
import { CONTROL_SEALED_COLUMNS } from './control-sealed-columns';

export const CONTROL_ADMIN = 'pnpm control:admin';

export const CONTROL_ADMIN_COMMANDS: OperatorCommands = {
  'create-test-agent': {
    options: '[--name <workspace name>] [--email <person>]',
    summary:
      'a workspace owned by the person (default developer@example.com) and a test-mode agent, made through the running stack: prints base_url, workspace_slug, agent_key and an identity_token',
  },
  'rotate-cosign-key': {
    options: '',
    summary: 'new cosigning key, published at once, signing from activates_at (COSIGN_KEY_ACTIVATION_DELAY_MS later); retired keys stay published',
  },
  'rotate-secret-key': {
    options: '[--batch-size <n>]',
    summary: 're-seals every sealed row not under CONTROL_SECRET_KEY, opening the old ones with CONTROL_PREVIOUS_SECRET_KEYS (docs/security.md)',
  },
  'verify-log': {
    options: '[--workspace <slug>]',
    summary:
      "checks the workspace's audit log (default: every workspace's) against the database: every leaf rebuilt from its audit event, every checkpoint's root and signature; exits 1 on any finding (docs/verifiable-records.md)",
  },
};

/** Runs one operator command against a migrated database and returns what to print as JSON. */
export async function runControlAdmin(argv: string[], dataSource: DataSource, settings: CosignKeysSettings): Promise<Record<string, unknown>> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { 'batch-size': { type: 'string' }, workspace: { type: 'string' } },
  });
  switch (positionals[0]) {
    case 'rotate-cosign-key': {
      const keys = new CosignKeysService(dataSource, settings);
      const created = await keys.rotate();
      return {
        kid: created.kid,
        created_at: created.created_at.toISOString(),
        activates_at: created.activates_at.toISOString(),
        published: (await keys.publishedKids()).length,
      };
    }
    case 'rotate-secret-key': {
      const size = Number(values['batch-size'] ?? 200);
      if (!Number.isInteger(size) || size < 1 || size > 10_000) throw new OperatorUsageError('--batch-size must be an integer from 1 to 10000');
      return resealAll(dataSource, settings.rootKeys, CONTROL_SEALED_COLUMNS, size);
    }
    case 'verify-log': {
      const workspaces = await workspacesToVerify(dataSource.manager, values.workspace);
      if (values.workspace !== undefined && workspaces.length === 0) throw new OperatorUsageError(`no live workspace has the slug ${values.workspace}`);
      const keys = new CosignKeysService(dataSource, settings);
      const logs = [];
      for (const w of workspaces) logs.push({ workspace_slug: w.slug, ...(await verifyAuditLog(dataSource, keys, w.id)) });
      return { ok: logs.every((l) => l.ok), logs };
    }
    default:
      throw new OperatorUsageError(positionals[0] ? `unknown command ${positionals[0]}` : 'a command is required');
  }
}
