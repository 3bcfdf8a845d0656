import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { JWK } from '@bursar/crypto';

/** A cosigning key: the public half published in the JWKS, the private half sealed with SecretBox. */
@Entity('cosign_keys')
export class CosignKey {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('text')
  kid: string;

  @Column('jsonb')
  public_jwk: JWK;

  @Column('text', { select: false })
  private_jwk_sealed: string;

  /** `active`: the newest key, signing from `activates_at`; `retired`: replaced, signing until its `retired_at`. */
  @Column('text')
  status: 'active' | 'retired';

  /** When it starts signing; published (and verifying) from its creation. */
  @Column('timestamptz')
  activates_at: Date;

  @CreateDateColumn({ type: 'timestamptz' })
  created_at: Date;

  @Column('timestamptz', { nullable: true })
  retired_at: Date | null;
}
