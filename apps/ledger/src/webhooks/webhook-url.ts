import { checkEndpointUrl } from '@bursar/queue';
import { LedgerErrors } from '../common/ledger-errors';

const REASONS = {
  invalid_url: 'url must be an absolute http(s) URL without credentials',
  private_address: 'url resolves to a loopback, private or link-local address, which webhooks may not reach',
  unresolvable: 'url host does not resolve',
} as const;

/** 422 `invalid_request` (param `url`) unless the URL may receive webhooks. */
export async function assertDeliverableUrl(url: string, allowPrivate: boolean): Promise<void> {
  const problem = await checkEndpointUrl(url, allowPrivate);
  if (problem) throw LedgerErrors.error('invalid_request', { message: REASONS[problem], param: 'url', details: { reason: problem } });
}
