import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { parseCents } from '../common/cents.transformer';
import { BillingAccount } from './billing-account.entity';
import { BillingCheckout } from './billing-checkout.entity';
import type { MeteredDimension } from './billing-plans';

export type AccountFields = Partial<Omit<BillingAccount, 'id' | 'workspace_id' | 'created_at' | 'updated_at'>>;
export type Usage = Record<MeteredDimension, number>;

/** Seats in use now: agents not revoked, and members. Entitlement checks and the overview count alike. */
const AGENTS_IN_USE = `(SELECT count(*) FROM agents WHERE workspace_id = $1 AND status <> 'revoked')::text AS agents`;
const MEMBERS_IN_USE = `(SELECT count(*) FROM workspace_memberships WHERE workspace_id = $1)::text AS members`;

/** Intent states whose amount passed the gate and still counts (failed ones were released). */
const GATED_STATES = ['pending', 'completed', 'executed'];

@Injectable()
export class BillingRepository {
  constructor(private readonly dataSource: DataSource) {}

  findAccount(workspaceId: string, em: EntityManager = this.dataSource.manager): Promise<BillingAccount | null> {
    return em.getRepository(BillingAccount).findOneBy({ workspace_id: workspaceId });
  }

  /**
   * The workspace's account, created on first use, locked until the transaction ends so billing
   * writes (API calls and webhooks) apply one at a time. Null when the workspace does not exist.
   */
  async lockAccount(em: EntityManager, workspaceId: string): Promise<BillingAccount | null> {
    await em.query(
      `INSERT INTO billing_accounts (workspace_id) SELECT id FROM workspaces WHERE id = $1 ON CONFLICT (workspace_id) DO NOTHING`,
      [workspaceId],
    );
    return em
      .getRepository(BillingAccount)
      .createQueryBuilder('a')
      .setLock('pessimistic_write')
      .where('a.workspace_id = :workspaceId', { workspaceId })
      .getOne();
  }

  /**
   * The workspace a provider subscription or customer belongs to. Unscoped, like the two event
   * methods below, because inbound provider events carry only provider ids: this is what finds the scope.
   */
  async workspaceOf(em: EntityManager, ids: { subscriptionId?: string; customerId?: string }): Promise<string | null> {
    const rows: { workspace_id: string }[] = await em.query(
      `SELECT workspace_id FROM billing_accounts WHERE subscription_id = $1 OR customer_id = $2 ORDER BY subscription_id = $1 DESC LIMIT 1`,
      [ids.subscriptionId ?? null, ids.customerId ?? null],
    );
    return rows[0]?.workspace_id ?? null;
  }

  async updateAccount(em: EntityManager, workspaceId: string, fields: AccountFields): Promise<BillingAccount> {
    await em.update(BillingAccount, { workspace_id: workspaceId }, fields);
    return em.findOneByOrFail(BillingAccount, { workspace_id: workspaceId });
  }

  /**
   * Records a started checkout; false when the provider handed back a session already recorded (an
   * idempotent replay), which must neither reopen a completed checkout nor be audited twice.
   */
  async insertCheckout(em: EntityManager, workspaceId: string, fields: Omit<BillingCheckout, 'workspace_id' | 'status' | 'completed_at' | 'created_at'>): Promise<boolean> {
    const rows: unknown[] = await em.query(
      `INSERT INTO billing_checkouts (id, workspace_id, kind, plan, units, volume_cents, status, started_by_sub)
       VALUES ($1, $2, $3, $4, $5, $6, 'open', $7) ON CONFLICT (id) DO NOTHING RETURNING id`,
      [fields.id, workspaceId, fields.kind, fields.plan, fields.units, String(fields.volume_cents), fields.started_by_sub],
    );
    return rows.length === 1;
  }

  /** Marks a checkout completed; null when it is unknown or was completed before. Its row names the workspace. */
  async completeCheckout(em: EntityManager, id: string): Promise<BillingCheckout | null> {
    const [rows]: [Record<string, unknown>[]] = await em.query(
      `UPDATE billing_checkouts SET status = 'completed', completed_at = now() WHERE id = $1 AND status = 'open' RETURNING *`,
      [id],
    );
    return rows[0] ? em.create(BillingCheckout, { ...rows[0], volume_cents: parseCents(String(rows[0].volume_cents)) }) : null;
  }

  /** Claims a provider event id; false when it was applied before (or is being applied right now). */
  async claimEvent(em: EntityManager, id: string, type: string): Promise<boolean> {
    const rows: unknown[] = await em.query(`INSERT INTO billing_events (id, type) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING RETURNING id`, [id, type]);
    return rows.length === 1;
  }

  async attachEvent(em: EntityManager, workspaceId: string, id: string): Promise<void> {
    await em.query(`UPDATE billing_events SET workspace_id = $1 WHERE id = $2`, [workspaceId, id]);
  }

  /** What the workspace has in use now (agents, members) and used within [from, to). */
  async usage(workspaceId: string, from: Date, to: Date): Promise<Usage> {
    const [row]: Record<string, string>[] = await this.dataSource.query(
      `SELECT
         ${AGENTS_IN_USE},
         ${MEMBERS_IN_USE},
         count(*) FILTER (WHERE kind = 'payment')::text AS payment_authorizations,
         count(*) FILTER (WHERE kind = 'action')::text AS action_authorizations,
         coalesce(sum(amount_cents) FILTER (WHERE state = ANY($4)), 0)::text AS gated_volume
       FROM intents WHERE workspace_id = $1 AND created_at >= $2 AND created_at < $3`,
      [workspaceId, from, to, GATED_STATES],
    );
    return {
      agents: parseCents(row.agents),
      members: parseCents(row.members),
      payment_authorizations: parseCents(row.payment_authorizations),
      action_authorizations: parseCents(row.action_authorizations),
      gated_volume: parseCents(row.gated_volume),
    };
  }

  /** Agents and members in use now, read in the caller's transaction. */
  async seatsInUse(em: EntityManager, workspaceId: string): Promise<Pick<Usage, 'agents' | 'members'>> {
    const [row]: Record<string, string>[] = await em.query(`SELECT ${AGENTS_IN_USE}, ${MEMBERS_IN_USE}`, [workspaceId]);
    return { agents: parseCents(row.agents), members: parseCents(row.members) };
  }

  /** Prepaid packs paid for within [from, to). */
  async prepaid(workspaceId: string, from: Date, to: Date): Promise<{ units: number; volume_cents: number }> {
    const [row]: Record<string, string>[] = await this.dataSource.query(
      `SELECT coalesce(sum(units), 0)::text AS units, coalesce(sum(volume_cents), 0)::text AS volume_cents
       FROM billing_checkouts
       WHERE workspace_id = $1 AND kind = 'pack' AND status = 'completed' AND completed_at >= $2 AND completed_at < $3`,
      [workspaceId, from, to],
    );
    return { units: parseCents(row.units), volume_cents: parseCents(row.volume_cents) };
  }
}
