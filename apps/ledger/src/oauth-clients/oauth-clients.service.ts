import { Injectable, Optional } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { digestSecret, randomId, randomToken, verifySecret } from '@bursar/crypto';
import { ListPage } from '../common/envelope.interceptor';
import { LedgerErrors } from '../common/ledger-errors';
import { PageRequest, Pagination } from '../common/pagination';
import { assertPreconditions, Preconditions } from '../common/preconditions';
import { oauthClientValidators, presentOauthClient } from './oauth-client.presenter';
import { TenantScope } from '../common/mode';
import { EventsService } from '../events/events.service';
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
    /** Absent in the operator CLI, whose bootstrap writes announce nothing. */
    @Optional() private readonly events?: EventsService,
  ) {}

  async create(scope: TenantScope, request: NewClientRequest): Promise<ClientWithSecret> {
    // The ledger must belong to the caller's organization and mode; anything else reads as absent.
    await this.ledgers.get(scope, request.ledgerId, 'ledger_id');
    const { secret, digest } = mintSecret(scope);
    return this.clients.transaction(async (manager) => {
      const client = await this.clients.insert(manager, scope, {
        id: randomId('client'),
        ledgerId: request.ledgerId,
        name: request.name,
        scopes: [...new Set(request.scopes)],
        secretDigest: digest,
      });
      await this.announce(manager, scope, 'oauth_client.created', client);
      return { client, secret };
    });
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
    return this.clients.transaction(async (manager) => {
      const disabled = await this.clients.disable(manager, scope, id, now);
      const client = await this.reread(manager, scope, id);
      // Deleting twice answers the same; only the first is an event.
      if (disabled) await this.announce(manager, scope, 'oauth_client.deleted', client);
      return client;
    });
  }

  async rotateSecret(scope: TenantScope, id: string, force: boolean, now: Date): Promise<ClientWithSecret> {
    const { secret, digest } = mintSecret(scope);
    const previousExpiresAt = new Date(now.getTime() + SECRET_OVERLAP_MS);
    const rotated = await this.clients.transaction(async (manager) => {
      if (!(await this.clients.rotateSecret(manager, scope, id, { digest, now, previousExpiresAt, force }))) return null;
      const client = await this.reread(manager, scope, id);
      await this.announce(manager, scope, 'oauth_client.secret_rotated', client);
      return client;
    });
    if (rotated) return { client: rotated, secret };
    const client = await this.get(scope, id);
    if (client.disabledAt) throw OauthClientErrors.error('invalid_state');
    throw OauthClientErrors.error('rotation_in_progress', {
      hint: 'Wait until previous_secret_expires_at, or pass ?force=true to destroy the previous secret now',
      details: { previous_secret_expires_at: client.previousSecretExpiresAt?.toISOString() },
    });
  }

  private async reread(manager: EntityManager, scope: TenantScope, id: string): Promise<OauthClientEntity> {
    const client = await this.clients.findById(scope, id, manager);
    if (!client) throw LedgerErrors.error('not_found', { message: 'No such OAuth client' });
    return client;
  }

  /**
   * Records an `oauth_client.*` event (reference R2 names) in the ledger the client is pinned to;
   * events live in a ledger's log, so a client pinned to none has nowhere to announce.
   */
  private async announce(manager: EntityManager, scope: TenantScope, type: string, client: OauthClientEntity): Promise<void> {
    if (!this.events || !client.ledgerId) return;
    await this.events.record(manager, { ...scope, ledgerId: client.ledgerId }, type, client.id, presentOauthClient(client));
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
