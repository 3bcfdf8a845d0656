import { Injectable } from '@nestjs/common';
import { digestSecret, randomId, randomToken, verifySecret } from '@bursar/crypto';
import { ListPage } from '../common/envelope.interceptor';
import { LedgerErrors } from '../common/ledger-errors';
import { PageRequest, Pagination } from '../common/pagination';
import { assertPreconditions, Preconditions } from '../common/preconditions';
import { oauthClientValidators } from './oauth-client.presenter';
import { TenantScope } from '../common/mode';
import { LedgersService } from '../ledgers/ledgers.service';
import { OauthClientErrors } from './oauth-client-errors';
import { OauthClientEntity } from './oauth-client.entity';
import { OauthClientsRepository } from './oauth-clients.repository';
import { ClientScope } from './oauth-scopes';

export interface NewClientRequest {
  name: string;
  ledgerId: string;
  scopes: ClientScope[];
}

/** A client together with the secret that was just minted for it; the secret is never stored. */
export interface ClientWithSecret {
  client: OauthClientEntity;
  secret: string;
}

/** How long a rotated-out secret keeps working (the contract's overlap window). */
export const SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;

function mintSecret(scope: TenantScope): { secret: string; digest: string } {
  const secret = `sk_${scope.mode}_${randomToken(32)}`;
  return { secret, digest: digestSecret(secret) };
}

@Injectable()
export class OauthClientsService {
  constructor(
    private readonly clients: OauthClientsRepository,
    private readonly ledgers: LedgersService,
    private readonly pagination: Pagination,
  ) {}

  async create(scope: TenantScope, request: NewClientRequest): Promise<ClientWithSecret> {
    // The ledger must belong to the caller's organization and mode; anything else reads as absent.
    await this.ledgers.get(scope, request.ledgerId, 'ledger_id');
    const { secret, digest } = mintSecret(scope);
    const client = await this.clients.insert(scope, {
      id: randomId('client'),
      ledgerId: request.ledgerId,
      name: request.name,
      scopes: [...new Set(request.scopes)],
      secretDigest: digest,
    });
    return { client, secret };
  }

  list<U>(scope: TenantScope, query: PageRequest, present: (row: OauthClientEntity) => U): Promise<ListPage<U>> {
    return this.clients.page(scope, this.pagination, query, present);
  }

  /** A client of another organization or mode is reported absent. */
  async get(scope: TenantScope, id: string): Promise<OauthClientEntity> {
    const client = await this.clients.findById(scope, id);
    if (!client) throw LedgerErrors.error('not_found', { message: 'No such OAuth client' });
    return client;
  }

  /** Renames the client if the caller's preconditions hold against it as it is now. */
  async rename(scope: TenantScope, id: string, name: string | undefined, pre: Preconditions): Promise<OauthClientEntity> {
    const updated = await this.clients.update(scope, id, (current) => {
      assertPreconditions(pre, oauthClientValidators(current));
      return name === undefined ? null : { name };
    });
    if (!updated) throw LedgerErrors.error('not_found', { message: 'No such OAuth client' });
    return updated;
  }

  /** Blocks new tokens at once; tokens already issued live until they expire. */
  async disable(scope: TenantScope, id: string, now: Date): Promise<OauthClientEntity> {
    await this.get(scope, id);
    await this.clients.disable(scope, id, now);
    return this.get(scope, id);
  }

  async rotateSecret(scope: TenantScope, id: string, force: boolean, now: Date): Promise<ClientWithSecret> {
    const { secret, digest } = mintSecret(scope);
    const previousExpiresAt = new Date(now.getTime() + SECRET_OVERLAP_MS);
    if (!(await this.clients.rotateSecret(scope, id, { digest, now, previousExpiresAt, force }))) {
      const client = await this.get(scope, id);
      if (client.disabledAt) throw OauthClientErrors.error('invalid_state');
      throw OauthClientErrors.error('rotation_in_progress', {
        hint: 'Wait until previous_secret_expires_at, or pass ?force=true to destroy the previous secret now',
        details: { previous_secret_expires_at: client.previousSecretExpiresAt?.toISOString() },
      });
    }
    return { client: await this.get(scope, id), secret };
  }

  /**
   * The active client these credentials name, or null. The secret replaced by a rotation still
   * counts until its overlap window ends.
   */
  async authenticate(clientId: string, secret: string, now: Date): Promise<OauthClientEntity | null> {
    const client = await this.clients.findForAuthentication(clientId);
    if (!client || client.disabledAt) return null;
    const current = verifySecret(secret, client.secretDigest);
    const previous =
      client.previousSecretDigest !== null &&
      client.previousSecretExpiresAt !== null &&
      client.previousSecretExpiresAt > now &&
      verifySecret(secret, client.previousSecretDigest);
    if (!current && !previous) return null;
    await this.clients.markUsed(client, client.id, now);
    return client;
  }
}
