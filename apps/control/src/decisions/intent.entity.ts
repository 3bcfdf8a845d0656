import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import { centsTransformer } from '../common/cents.transformer';
import type { RecordedInputs } from './decision-inputs';

export type IntentKind = 'action' | 'payment';
export type IntentState = 'pending' | 'held' | 'completed' | 'executed' | 'failed' | 'denied';

/** One authorization request and its outcome; action intents and payment intents share the table. */
@Entity('intents')
export class Intent {
  @PrimaryColumn('uuid')
  id: string;

  @Column('uuid')
  workspace_id: string;

  @Column('uuid')
  agent_id: string;

  @Column('uuid')
  budget_id: string;

  @Column('text')
  kind: IntentKind;

  @Column('text')
  action_type: string;

  @Column('text', { nullable: true })
  resource: string | null;

  @Column('bigint', { transformer: centsTransformer })
  amount_cents: number;

  @Column('text')
  currency: string;

  @Column('text')
  state: IntentState;

  @Column('bigint', { transformer: centsTransformer })
  reserved_cents: number;

  @Column('text')
  idempotency_key: string;

  @Column('text')
  request_digest: string;

  @Column('integer')
  http_status: number;

  @Column('text', { nullable: true })
  trace_id: string | null;

  @Column('uuid', { nullable: true })
  spend_token_id: string | null;

  @Column('text', { nullable: true })
  failure_reason: string | null;

  @Column('text', { nullable: true })
  resolved_by_sub: string | null;

  @Column('timestamptz', { nullable: true })
  resolved_at: Date | null;

  @Column('text', { nullable: true })
  ledger_transaction_id: string | null;

  @Column('jsonb')
  decision: Record<string, unknown>;

  @Column('jsonb', { nullable: true })
  decision_context: Record<string, unknown> | null;

  /** What the decision read besides policy and frame (null before decisions recorded it); see `RecordedInputs`. */
  @Column('jsonb', { nullable: true })
  decision_inputs: RecordedInputs | null;

  @Column('jsonb')
  metadata: Record<string, unknown>;

  /** The cosignature handed out while the intent is spendable (allowed, or approved later). */
  @Column('text', { nullable: true })
  cosignature: string | null;

  @Column('timestamptz', { nullable: true })
  cosign_expires_at: Date | null;

  @Column('timestamptz', { nullable: true })
  cosign_consumed_at: Date | null;

  @Column('text', { nullable: true })
  consumed_by: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  created_at: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updated_at: Date;
}
