import { validatorsOf, Validators } from '../common/preconditions';
import { OauthClientEntity } from './oauth-client.entity';

/** The wire form; `client_id` (the contract's name) and `id` (the reference's) carry the same value. */
export function presentOauthClient(client: OauthClientEntity) {
  return {
    object: 'oauth_client' as const,
    id: client.id,
    client_id: client.id,
    name: client.name,
    mode: client.mode,
    scopes: client.scopes,
    ledger_id: client.ledgerId,
    active: client.disabledAt === null,
    last_used_at: client.lastUsedAt?.toISOString() ?? null,
    created_at: client.createdAt.toISOString(),
  };
}

/** ETag and Last-Modified of a client. `last_used_at` changes with every token, so it is left out. */
export function oauthClientValidators(client: OauthClientEntity): Validators {
  return validatorsOf({ ...presentOauthClient(client), last_used_at: undefined }, client.updatedAt);
}

export const CLIENT_SECRET_NOTE = 'Store this secret now: it is shown only once and cannot be retrieved later.';
