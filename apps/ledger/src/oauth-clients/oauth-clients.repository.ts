import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, Repository } from 'typeorm';
import { ListPage } from '../common/envelope.interceptor';
import { updateLocked } from '../common/locked-update';
import { TenantScope } from '../common/mode';
import { ListOrder, PageRequest, Pagination } from '../common/pagination';
import { OauthClientEntity } from './oauth-client.entity';

export type NewOauthClient = Pick<OauthClientEntity, 'id' | 'ledgerId' | 'name' | 'scopes' | 'secretDigest'>;

/** Oldest first. */
const CLIENT_ORDER: ListOrder = {
  list: 'oauth_clients',
  sortColumn: 'c.created_at',
  sortType: 'timestamptz',
  idColumn: 'c.id',
  idType: 'text',
  direction: 'ASC',
};

@Injectable()
export class OauthClientsRepository {
  private readonly rows: Repository<OauthClientEntity>;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    this.rows = dataSource.getRepository(OauthClientEntity);
  }

  /** Runs `work` in one database transaction, so a change and its event commit together. */
  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  insert(manager: EntityManager, scope: TenantScope, client: NewOauthClient): Promise<OauthClientEntity> {
    const rows = manager.getRepository(OauthClientEntity);
    return rows.save(rows.create({ ...client, organizationId: scope.organizationId, mode: scope.mode }));
  }

  page<U>(scope: TenantScope, pagination: Pagination, query: PageRequest, present: (row: OauthClientEntity) => U): Promise<ListPage<U>> {
    const qb = this.rows
      .createQueryBuilder('c')
      .where('c.organization_id = :org AND c.mode = :mode', { org: scope.organizationId, mode: scope.mode });
    return pagination.page(qb, CLIENT_ORDER, scope, query, present);
  }

  /** Applies `change` to the locked row (see updateLocked); null when the client is not the tenant's. */
  update(
    scope: TenantScope,
    id: string,
    change: (current: OauthClientEntity) => Partial<OauthClientEntity> | null,
  ): Promise<OauthClientEntity | null> {
    return updateLocked(this.dataSource, OauthClientEntity, { id, organizationId: scope.organizationId, mode: scope.mode }, change);
  }

  findById(scope: TenantScope, id: string, manager: EntityManager = this.dataSource.manager): Promise<OauthClientEntity | null> {
    return manager.getRepository(OauthClientEntity).findOneBy({ id, organizationId: scope.organizationId, mode: scope.mode });
  }

  /**
   * The one lookup that precedes knowing the tenant: the token endpoint learns the organization
   * and mode from the client it authenticates.
   */
  findForAuthentication(clientId: string): Promise<OauthClientEntity | null> {
    return this.rows.findOneBy({ id: clientId });
  }

  /** Whether this call disabled the client (false when absent or already disabled). */
  async disable(manager: EntityManager, scope: TenantScope, id: string, at: Date): Promise<boolean> {
    const [, affected] = await manager.query(
      `UPDATE oauth_clients SET disabled_at = $1, updated_at = now()
       WHERE id = $2 AND organization_id = $3 AND mode = $4 AND disabled_at IS NULL`,
      [at, id, scope.organizationId, scope.mode],
    );
    return affected > 0;
  }

  /**
   * Replaces the secret in one statement, so two concurrent rotations cannot both pass the overlap
   * check. Unless `force`, the replaced secret stays valid until `previousExpiresAt`. Returns
   * whether a row changed: false when the client is absent, disabled or inside its window.
   */
  async rotateSecret(
    manager: EntityManager,
    scope: TenantScope,
    id: string,
    change: { digest: string; now: Date; previousExpiresAt: Date; force: boolean },
  ): Promise<boolean> {
    const [, affected] = await manager.query(
      `UPDATE oauth_clients SET
         previous_secret_digest = CASE WHEN $4 THEN NULL ELSE secret_digest END,
         previous_secret_expires_at = CASE WHEN $4 THEN NULL ELSE $3::timestamptz END,
         secret_digest = $1,
         updated_at = now()
       WHERE id = $5 AND organization_id = $6 AND mode = $7 AND disabled_at IS NULL
         AND ($4 OR previous_secret_expires_at IS NULL OR previous_secret_expires_at <= $2)`,
      [change.digest, change.now, change.previousExpiresAt, change.force, id, scope.organizationId, scope.mode],
    );
    return affected > 0;
  }

  /** Raw SQL so that use does not count as a modification (`updated_at` stays). */
  async markUsed(scope: TenantScope, id: string, at: Date): Promise<void> {
    await this.rows.query(
      'UPDATE oauth_clients SET last_used_at = $1 WHERE id = $2 AND organization_id = $3 AND mode = $4',
      [at, id, scope.organizationId, scope.mode],
    );
  }
}
