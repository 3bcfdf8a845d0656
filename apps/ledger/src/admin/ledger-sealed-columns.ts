import { ENDPOINT_SEALED_COLUMNS } from '@bursar/queue';
import type { SealedColumn } from '@bursar/service-kit';
import { Mode } from '../common/mode';
import { idempotencyAad } from '../idempotency/idempotency.service';
import { inboundSecretAad, inboundTokenAad } from '../sources/inbound-credentials';

/** Every column of the ledger database holding values sealed with LEDGER_SECRET_KEY (re-sealed by `rotate-secret-key`). */
export const LEDGER_SEALED_COLUMNS: SealedColumn[] = [
  ...ENDPOINT_SEALED_COLUMNS,
  { table: 'reconciliation_sources', column: 'inbound_token_sealed', key: ['id'], aad: (row) => inboundTokenAad(row.id) },
  { table: 'reconciliation_sources', column: 'inbound_secret_sealed', key: ['id'], aad: (row) => inboundSecretAad(row.id) },
  {
    table: 'idempotency_keys',
    column: 'response_body',
    key: ['organization_id', 'mode', 'client_id', 'route', 'key'],
    aad: (row) => idempotencyAad({ organizationId: row.organization_id, mode: row.mode as Mode, clientId: row.client_id, route: row.route, key: row.key }),
  },
];
