import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { Mode } from '../common/mode';
import type { ClientScope } from './oauth-scopes';

@Entity('oauth_clients')
export class OauthClientEntity {
  /** `client_…`; also the OAuth client_id. */
  @PrimaryColumn('text')
  id: string;

  @Column('uuid', { name: 'organization_id' })
  organizationId: string;

  @Column('uuid', { name: 'ledger_id', nullable: true })
  ledgerId: string | null;

  @Column('text')
  mode: Mode;

  @Column('text')
  name: string;

  @Column('text', { array: true })
  scopes: ClientScope[];

  /** Only a digest of the secret is kept; the secret itself is shown once. */
  @Column('text', { name: 'secret_digest' })
  secretDigest: string;

  /** The secret replaced by the last rotation, accepted until `previousSecretExpiresAt`. */
  @Column('text', { name: 'previous_secret_digest', nullable: true })
  previousSecretDigest: string | null;

  @Column('timestamptz', { name: 'previous_secret_expires_at', nullable: true })
  previousSecretExpiresAt: Date | null;

  @Column('timestamptz', { name: 'disabled_at', nullable: true })
  disabledAt: Date | null;

  @Column('timestamptz', { name: 'last_used_at', nullable: true })
  lastUsedAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
