import { Injectable } from '@nestjs/common';
import { retryingTransaction } from '@bursar/service-kit';
import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource } from 'typeorm';
import { ControlSettings } from '../config/control.settings';
import { PolicyEngine } from '../policies/policy-engine.service';
import { WebhookEventsService } from '../webhooks/webhook-events.service';
import { BacktestSimulator, HistoryRecord } from './backtest-simulator';
import { PolicyBacktest, PolicyBacktestsRepository } from './policy-backtests.repository';
import { presentBacktest } from './policy-backtest.presenter';

/** The run was stopped (shutdown) or taken over; it wrote nothing final. */
export class BacktestInterrupted extends Error {}

const BEAT_MS = 1000;

/**
 * Runs one claimed backtest: streams the history in keyset pages (the next page is read while this
 * one is evaluated), evaluates it with the draft compiled once, writes the changed decisions page by
 * page, and completes it with its webhook event in one transaction.
 */
@Injectable()
export class BacktestRunner {
  constructor(
    private readonly dataSource: DataSource,
    private readonly backtests: PolicyBacktestsRepository,
    private readonly engine: PolicyEngine,
    private readonly webhooks: WebhookEventsService,
    private readonly settings: ControlSettings,
  ) {}

  async run(backtest: PolicyBacktest, signal?: AbortSignal): Promise<PolicyBacktest> {
    const { workspace_id: workspaceId, id } = backtest;
    const draft = this.engine.prepare([backtest.snapshot]);
    const from = backtest.from_at.getTime();
    const to = backtest.to_at.getTime();
    const [agents, total] = await Promise.all([
      this.backtests.agentKeys(workspaceId, backtest.agent_id),
      this.backtests.countDecisions(workspaceId, backtest.agent_id, backtest.from_at, backtest.to_at, Number.MAX_SAFE_INTEGER),
    ]);
    const simulator = new BacktestSimulator(draft, backtest.mode, agents);
    const page = (after: string | null) =>
      this.backtests.historyPage({
        workspaceId,
        agentId: backtest.agent_id,
        warmFrom: BacktestSimulator.warmUpFrom(draft, from),
        from,
        to,
        after,
        limit: this.settings.POLICY_BACKTEST_PAGE_SIZE,
        withMetadata: hasConditions(backtest),
      });
    let seq = 0;
    let beatAt = Date.now();
    let next: Promise<HistoryRecord[]> | null = page(null);
    // A page's changes are written while the next page is evaluated; one write in flight at a time.
    let writing: Promise<void> = Promise.resolve();
    while (next) {
      const rows: HistoryRecord[] = await next;
      next = rows.length === this.settings.POLICY_BACKTEST_PAGE_SIZE ? page(rows[rows.length - 1].id) : null;
      const changes = [];
      for (const row of rows) {
        const change = simulator.next(row);
        if (change) changes.push({ seq: seq++, intent_id: change.record.id, replayed: { ...change.replayed, policy_version: draft.version } });
      }
      await writing;
      writing = this.backtests.insertChanges(workspaceId, id, changes);
      // Handled here so a failed write is not an unhandled rejection before it is awaited.
      writing.catch(() => undefined);
      if (signal?.aborted) {
        await Promise.all([next?.catch(() => undefined), writing.catch(() => undefined)]);
        throw new BacktestInterrupted('stopped');
      }
      if (Date.now() - beatAt >= BEAT_MS || this.settings.POLICY_BACKTEST_PAGE_DELAY_MS > 0) {
        beatAt = Date.now();
        const evaluated = simulator.result().evaluated;
        if (!(await this.backtests.beat(workspaceId, id, total ? Math.min(0.99, evaluated / total) : 0, evaluated))) throw new BacktestInterrupted('taken over');
      }
      if (this.settings.POLICY_BACKTEST_PAGE_DELAY_MS > 0) await sleep(this.settings.POLICY_BACKTEST_PAGE_DELAY_MS);
    }
    await writing;
    const result = simulator.result();
    const completed = await retryingTransaction(this.dataSource, async (em) => {
      const row = await this.backtests.complete(em, workspaceId, id, result);
      if (row) await this.webhooks.emit(em, workspaceId, 'policy_backtest.completed', presentBacktest(row));
      return row;
    });
    if (!completed) throw new BacktestInterrupted('taken over');
    return completed;
  }
}

/** Condition rules may read the request's metadata; other drafts never do, so it is not read. */
function hasConditions(backtest: PolicyBacktest): boolean {
  return [...backtest.snapshot.imported_rules, ...backtest.snapshot.rules].some((r) => r.kind === 'condition');
}
