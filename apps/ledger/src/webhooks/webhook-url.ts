import { checkEndpointUrl, ENDPOINT_URL_PROBLEMS } from '@bursar/queue';
import { LedgerErrors } from '../common/ledger-errors';

/** 422 `invalid_request` (param `url`, `details.reason`) unless the URL may receive webhooks. */
export async function assertDeliverableUrl(url: string, allowPrivate: boolean): Promise<void> {
  const problem = await checkEndpointUrl(url, allowPrivate);
  if (problem) {
    throw LedgerErrors.error('invalid_request', { message: ENDPOINT_URL_PROBLEMS[problem], param: 'url', details: { reason: problem } });
  }
}
