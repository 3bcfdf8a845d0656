import { ENDPOINT_SEALED_COLUMNS } from '@bursar/queue';
import type { SealedColumn } from '@bursar/service-kit';
import { cosignKeyAad } from '../cosign/cosign-keys.service';

/** Every column of the control database holding values sealed with CONTROL_SECRET_KEY (re-sealed by `rotate-secret-key`). */
export const CONTROL_SEALED_COLUMNS: SealedColumn[] = [
  ...ENDPOINT_SEALED_COLUMNS,
  { table: 'cosign_keys', column: 'private_jwk_sealed', key: ['kid'], aad: (row) => cosignKeyAad(row.kid) },
];
