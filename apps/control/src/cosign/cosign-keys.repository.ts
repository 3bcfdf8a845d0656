import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import type { JWK } from '@bursar/crypto';
import { CosignKey } from './cosign-key.entity';

export type CosignKeyWithSecret = CosignKey & { private_jwk_sealed: string };

/** Cosigning keys belong to the deployment, not a workspace: the one table with no tenant column. */
@Injectable()
export class CosignKeysRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Every key, active first; retired keys stay so cosignatures they signed keep verifying. */
  all(em: EntityManager = this.dataSource.manager): Promise<CosignKeyWithSecret[]> {
    return em
      .getRepository(CosignKey)
      .createQueryBuilder('k')
      .addSelect('k.private_jwk_sealed')
      .orderBy(`k.status = 'active'`, 'DESC')
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

  async retireActive(em: EntityManager): Promise<void> {
    await em.update(CosignKey, { status: 'active' }, { status: 'retired', retired_at: () => 'now()' });
  }

  insert(em: EntityManager, fields: { kid: string; public_jwk: JWK; private_jwk_sealed: string }): Promise<CosignKey> {
    return em.save(em.create(CosignKey, { ...fields, status: 'active' }));
  }
}
