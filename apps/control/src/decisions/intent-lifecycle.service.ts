import { Injectable } from '@nestjs/common';
import { retryingTransaction } from '@bursar/service-kit';
import { DataSource, EntityManager } from 'typeorm';
import { AuditService } from '../audit/audit.service';
import type { AuditActor } from '../audit/audit-subjects';
import { notFound, unprocessable } from '../common/control-errors';
import { WebhookEventsService } from '../webhooks/webhook-events.service';
import { AuthorizationService } from './authorization.service';
import { Intent, IntentState } from './intent.entity';
import { auditNames, presentIntent } from './intent.presenter';
import { IntentScope, IntentsRepository } from './intents.repository';
import { ReservationsRepository } from './reservations.repository';

/** `budget.low` fires once per budget, on the first executed payment that leaves this share of it or less. */
const LOW_BUDGET_SHARE = 0.1;

interface Move {
  from: IntentState[];
  to: IntentState;
  patch?: Partial<Pick<Intent, 'failure_reason' | 'resolved_by_sub' | 'resolved_at' | 'ledger_transaction_id'>>;
  /** What happens to the reservation: kept (approve), spent (complete) or handed back. */
  reservation: 'keep' | 'spend' | 'release';
  audit: string;
  webhook?: string;
  actor: AuditActor;
}

/**
 * Everything after the decision: the agent reports complete or fail, a person approves or denies
 * a hold. Each move is one conditional UPDATE, so racing resolutions apply once; a wrong state is 422.
 */
@Injectable()
export class IntentLifecycleService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly intents: IntentsRepository,
    private readonly reservations: ReservationsRepository,
    private readonly authorizations: AuthorizationService,
    private readonly audit: AuditService,
    private readonly webhooks: WebhookEventsService,
  ) {}

  complete(scope: IntentScope, id: string, ledgerTransactionId: string | undefined): Promise<Intent> {
    const names = auditNames(scope);
    const done: IntentState = scope.kind === 'payment' ? 'executed' : 'completed';
    return this.move(scope, id, {
      from: ['pending'],
      to: done,
      patch: ledgerTransactionId ? { ledger_transaction_id: ledgerTransactionId } : {},
      reservation: 'spend',
      audit: `${names.prefix}.${done}`,
      webhook: `${names.webhook}.${done}`,
      actor: { type: 'agent', id: scope.agentId ?? null },
    });
  }

  fail(scope: IntentScope, id: string, reason: string | undefined): Promise<Intent> {
    const names = auditNames(scope);
    return this.move(scope, id, {
      from: ['pending', 'held'],
      to: 'failed',
      patch: { failure_reason: reason ?? 'execution_failed' },
      reservation: 'release',
      audit: `${names.prefix}.failed`,
      webhook: `${names.webhook}.failed`,
      actor: { type: 'agent', id: scope.agentId ?? null },
    });
  }

  /** Approving costs no extra headroom (the hold reserved it) and issues the cosignature. */
  approve(scope: IntentScope, id: string, sub: string, traceId: string): Promise<Intent> {
    return this.move(scope, id, {
      from: ['held'],
      to: 'pending',
      patch: { resolved_by_sub: sub, resolved_at: new Date() },
      reservation: 'keep',
      audit: 'approval.granted',
      actor: { type: 'person', id: sub },
    }, traceId);
  }

  deny(scope: IntentScope, id: string, sub: string, reason: string | undefined, traceId: string): Promise<Intent> {
    return this.move(scope, id, {
      from: ['held'],
      to: 'denied',
      patch: { resolved_by_sub: sub, resolved_at: new Date(), failure_reason: reason ?? 'approval_denied' },
      reservation: 'release',
      audit: 'approval.denied',
      actor: { type: 'person', id: sub },
    }, traceId);
  }

  private move(scope: IntentScope, id: string, move: Move, traceId?: string): Promise<Intent> {
    return retryingTransaction(this.dataSource, async (em) => {
      const moved = await this.intents.transition(em, scope, id, move.from, {
        ...move.patch,
        state: move.to,
        ...(move.reservation !== 'keep' && { reserved_cents: 0 }),
      });
      if (!moved) {
        const current = await this.intents.find(scope, id, em);
        if (!current) throw notFound(scope.kind === 'payment' ? 'payment intent' : 'action intent');
        throw unprocessable(`The intent is ${current.state}; this needs it ${move.from.join(' or ')}`);
      }
      const lowAfter = await this.moveReservation(em, moved, move.reservation);
      if (move.to === 'pending') await this.authorizations.issueCosignature(em, moved);
      const presented = presentIntent(moved);
      await this.audit.append(em, moved.workspace_id, {
        subject_type: auditNames(moved).subject_type,
        subject_id: moved.id,
        action: move.audit,
        trace_id: traceId ?? moved.trace_id,
        snapshot: presented,
        actor: move.actor,
      });
      if (move.webhook) await this.webhooks.emit(em, moved.workspace_id, move.webhook, presented);
      if (move.audit.startsWith('approval.')) {
        await this.webhooks.emit(em, moved.workspace_id, 'approval.resolved', {
          resolution: move.to === 'pending' ? 'approved' : 'denied',
          kind: moved.kind,
          intent: presented,
        });
      }
      if (lowAfter) await this.webhooks.emit(em, moved.workspace_id, 'budget.low', lowAfter);
      return moved;
    });
  }

  /** Moves the money; answers the budget.low payload when an executed payment leaves little. */
  private async moveReservation(em: EntityManager, intent: Intent, what: Move['reservation']): Promise<object | null> {
    const amount = intent.amount_cents;
    if (what === 'release') await this.reservations.release(em, intent.workspace_id, intent.agent_id, intent.budget_id, amount);
    if (what !== 'spend') return null;
    const payment = intent.kind === 'payment';
    const after = await this.reservations.spend(em, intent.workspace_id, intent.agent_id, intent.budget_id, amount, payment ? LOW_BUDGET_SHARE : null);
    if (!after.lowNotice) return null;
    return { budget_id: intent.budget_id, agent_id: intent.agent_id, budget_cents: after.budget, remaining_cents: after.remaining };
  }
}
