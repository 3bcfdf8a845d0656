import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import type { JWK } from '@bursar/crypto';
import { CosignKey } from './cosign-key.entity';

export type CosignKeyWithSecret = CosignKey & { private_jwk_sealed: string };

/** Cosigning keys belong to the deployment, not a workspace: the one table with no tenant column. */
@Injectable()
export class CosignKeysRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Every key, latest activation first; retired keys stay so cosignatures they signed keep verifying. */
  all(em: EntityManager = this.dataSource.manager): Promise<CosignKeyWithSecret[]> {
    return em
      .getRepository(CosignKey)
      .createQueryBuilder('k')
      .addSelect('k.private_jwk_sealed')
      .orderBy('k.activates_at', 'DESC')
      .addOrderBy('k.created_at', 'DESC')
      .getMany() as Promise<CosignKeyWithSecret[]>;
  }

  /** Serialises key creation across replicas and the admin CLI. */
  async lock(em: EntityManager): Promise<void> {
    await em.query(`SELECT pg_advisory_xact_lock(hashtextextended('bursar.cosign_keys', 0))`);
  }

  async hasActive(em: EntityManager): Promise<boolean> {
    return (await em.count(CosignKey, { where: { status: 'active' } })) > 0;
  }

  /** The newest key gives way to one signing `activationDelayMs` from now (database clock); it signs until then. */
  async retireActive(em: EntityManager, activationDelayMs: number): Promise<void> {
    await em.query(`UPDATE cosign_keys SET status = 'retired', retired_at = clock_timestamp() + $1 * interval '1 millisecond' WHERE status = 'active'`, [
      activationDelayMs,
    ]);
  }

  /** The new newest key, published from now and signing `activationDelayMs` from now. */
  async insert(em: EntityManager, fields: { kid: string; public_jwk: JWK; private_jwk_sealed: string }, activationDelayMs: number): Promise<CosignKey> {
    const [row] = await em.query(
      `INSERT INTO cosign_keys (kid, public_jwk, private_jwk_sealed, status, created_at, activates_at)
       VALUES ($1, $2, $3, 'active', clock_timestamp(), clock_timestamp() + $4 * interval '1 millisecond') RETURNING kid, created_at, activates_at`,
      [fields.kid, JSON.stringify(fields.public_jwk), fields.private_jwk_sealed, activationDelayMs],
    );
    return row;
  }
}
