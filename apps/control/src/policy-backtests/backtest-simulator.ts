import { isDeepStrictEqual } from 'node:util';
import type { AgentMode } from '../agents/agent-key';
import { outcomeCounts } from '../decisions/counted-intents';
import type { Outcome } from '../decisions/decision';
import { applySettlement, decideVerdict, DecisionVerdict } from '../decisions/decision-engine';
import { BudgetCounters, DecisionCounters, frameOf, IntentFrame, RecordedInputs, RecordedWindow, TokenCounters } from '../decisions/decision-inputs';
import type { Remedy } from '../decisions/remedies';
import { actionTypeMatcher } from '../policies/action-types';
import type { WindowSpec, WindowUsage } from '../policies/policy-compiler';
import type { LoadedPolicies } from '../policies/policy-engine.service';

export type BacktestMode = 'sequential' | 'independent';

/** One recorded intent as a backtest reads it, in (agent, created_at, id) order. */
export interface HistoryRecord extends IntentFrame {
  id: string;
  metadata: Record<string, unknown>;
  /** created_at (ms). */
  at: number;
  /** When an intent that was allowed or held stopped counting (rejected, failed); null while it counts. */
  released_at: number | null;
  spend_token_id: string | null;
  outcome: Outcome;
  rule: string | null;
  /** The recorded remedy, as JSON text (parsed only when outcome and rule match). */
  remedy_json: string | null;
  /** The recorded decision's session headroom, for intents recorded without their counters. */
  session_remaining_cents: number | null;
  inputs: RecordedInputs | null;
  /** False for history before `from`: it only fills the windows. */
  evaluated: boolean;
}

/** The agent's key as it is now, for intents recorded without their counters. */
export type CurrentAgents = ReadonlyMap<string, { mode: AgentMode; scopes: string[] }>;

export interface OutcomeTotals {
  allowed: number;
  requires_approval: number;
  denied: number;
}

export interface BacktestSummary {
  evaluated: number;
  changed: number;
  totals: { before: OutcomeTotals; after: OutcomeTotals };
  /** Minor units per currency, by outcome. */
  amounts: Record<string, { before: OutcomeTotals; after: OutcomeTotals }>;
  top_rules: { rule: string; count: number }[];
}

export interface BacktestChange {
  record: HistoryRecord;
  replayed: DecisionVerdict;
}

/** One simulated intent in an agent's window history. */
interface Entry {
  seq: number;
  at: number;
  cost: number;
  /** Which draft windows its action type falls in (bit per window). */
  mask: number;
  /** Counted by the recorded history / by the draft's simulation, right now. */
  orig: boolean;
  draft: boolean;
}

interface WindowSums {
  head: number;
  origSpent: number;
  origCount: number;
  draftSpent: number;
  draftCount: number;
}

interface AgentState {
  entries: Entry[];
  /** seq of entries[0]. */
  base: number;
  next: number;
  sums: WindowSums[];
  /** Recorded releases still ahead, in time order. */
  releases: { at: number; entry: Entry; draftToo: boolean }[];
}

const TOP_RULES = 10;
const COMPACT_AT = 4096;
const zero = (): OutcomeTotals => ({ allowed: 0, requires_approval: 0, denied: 0 });

const windowKey = (kind: string, seconds: number | null, patterns: string[] | null) => `${kind}|${seconds}|${patterns === null ? '*' : patterns.join(',')}`;

/**
 * Re-decides recorded requests under a compiled draft, one at a time, in (agent, time) order.
 *
 * `independent`: each request against the counters it was recorded with; a draft window the
 * recorded policy did not have is measured over the recorded history.
 *
 * `sequential`: the draft's own outcomes feed the counters of every later request. Starting from
 * the recorded counters, each earlier request of the window whose outcome the draft changed moves
 * them: one the draft newly allows or holds reserves its amount and counts in windows from its
 * request time (as a live hold does) and is assumed to stay (approved, completed); one the draft
 * denies stops counting, until the time its recorded release (rejection, failure) would have freed it
 * anyway. A request both allow or hold keeps its recorded fate. A spend token is spent by the first
 * request the draft lets through. What the draft cannot change (top-ups, approvals of requests held
 * either way, the agent's key) stays as recorded.
 */
export class BacktestSimulator {
  private readonly windows: WindowSpec[];
  private readonly matchers: ((actionType: string) => boolean)[];
  private readonly keys: string[];
  private readonly masks = new Map<string, number>();
  private readonly agents = new Map<string, AgentState>();
  /** Per budget: reservations the draft adds minus recorded ones it removes (still held). */
  private readonly budgetDelta = new Map<string, number>();
  private readonly budgetReleases = new Map<string, { at: number; cost: number }[]>();
  private readonly tokensDraft = new Set<string>();
  private readonly tokensOrig = new Set<string>();
  private readonly ruleCounts = new Map<string, number>();
  private readonly summary: BacktestSummary = { evaluated: 0, changed: 0, totals: { before: zero(), after: zero() }, amounts: {}, top_rules: [] };

  constructor(
    private readonly draft: LoadedPolicies,
    private readonly mode: BacktestMode,
    private readonly currentAgents: CurrentAgents,
  ) {
    this.windows = draft.compiled.windows;
    if (this.windows.length > 30) throw new Error('A draft measures at most 30 windows');
    this.matchers = this.windows.map((w) => actionTypeMatcher(w.actionTypes));
    // Recorded windows name their action types by the LIKE patterns SQL measured them with.
    this.keys = this.windows.map((w) => windowKey(w.kind, w.window_seconds, w.likePatterns));
  }

  /** The history `from` must start at so every draft window is full at `from`. */
  static warmUpFrom(draft: LoadedPolicies, from: number): number {
    return Math.min(from, ...draft.compiled.windows.map((w) => w.since(from)));
  }

  /** Feeds one record; returns the change when it is evaluated and its outcome, rule or remedy changed. */
  next(record: HistoryRecord): BacktestChange | null {
    const agent = this.agentState(record.agent_id);
    this.advance(agent, record.at);
    this.releaseBudgets(record.budget_id, record.at);
    if (!record.evaluated) {
      this.remember(agent, record, record.outcome);
      return null;
    }
    const replayed = this.decide(agent, record);
    this.remember(agent, record, replayed.outcome);
    return this.tally(record, replayed) ? { record, replayed } : null;
  }

  result(): BacktestSummary {
    const top = [...this.ruleCounts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, TOP_RULES);
    return { ...this.summary, top_rules: top.map(([rule, count]) => ({ rule, count })) };
  }

  private decide(agent: AgentState, record: HistoryRecord): DecisionVerdict {
    const recorded = record.inputs;
    const sequential = this.mode === 'sequential';
    const counters: DecisionCounters = {
      now: recorded?.now ?? record.at,
      agent: recorded?.agent ?? this.currentAgents.get(record.agent_id) ?? { mode: 'live', scopes: [] },
      budget: this.budget(record),
      windows: this.usage(agent, record, sequential) as RecordedWindow[],
      spend_token: this.token(record),
    };
    if (!recorded && record.spend_token_id && record.rule?.startsWith('spend_token_')) {
      // Recorded without its counters: the token refusal stands (it comes before any policy).
      return { outcome: 'denied', rule: record.rule, detail: {}, remedy: this.recordedRemedy(record), headroom: {} };
    }
    const verdict = decideVerdict(this.draft, frameOf(record), counters);
    // A race the history lost (the reservation no longer fitted, another payment took the token)
    // is lost again by any outcome that needs the reservation or the token.
    return recorded?.settlement && verdict.outcome !== 'denied' ? applySettlement(verdict, frameOf(record), counters, recorded.settlement) : verdict;
  }

  private budget(record: HistoryRecord): BudgetCounters {
    const recorded: BudgetCounters = record.inputs?.budget ?? {
      status: record.rule === 'session_inactive' ? 'closed' : 'active',
      budget_cents: record.session_remaining_cents ?? Number.MAX_SAFE_INTEGER,
      spent_cents: 0,
      reserved_cents: 0,
    };
    if (this.mode === 'independent') return recorded;
    const delta = this.budgetDelta.get(record.budget_id) ?? 0;
    return delta === 0 ? recorded : { ...recorded, reserved_cents: recorded.reserved_cents + delta };
  }

  private token(record: HistoryRecord): TokenCounters | null {
    const recorded = record.inputs?.spend_token ?? null;
    if (!recorded || this.mode === 'independent') return recorded;
    if (this.tokensDraft.has(recorded.id)) return recorded.status === 'consumed' ? recorded : { ...recorded, status: 'consumed' };
    // Spent by an earlier request of the window that the draft refused: still unspent under the draft.
    if (recorded.status === 'consumed' && this.tokensOrig.has(recorded.id)) return { ...recorded, status: 'issued' };
    return recorded;
  }

  private usage(agent: AgentState, record: HistoryRecord, sequential: boolean): WindowUsage[] {
    if (!this.windows.length) return [];
    const recorded = record.inputs?.windows;
    const byKey = recorded?.length ? new Map(recorded.map((w) => [windowKey(w.kind, w.window_seconds, w.action_patterns), w])) : null;
    return this.windows.map((_, k) => {
      const sums = agent.sums[k];
      const same = byKey?.get(this.keys[k]);
      const oldest = () => this.oldest(agent, k, sequential);
      if (same) {
        if (!sequential) return same;
        return {
          spent_cents: same.spent_cents + sums.draftSpent - sums.origSpent,
          count: same.count + sums.draftCount - sums.origCount,
          // Not the recorded oldest: the warm-up saw every request of the window, and the draft may have dropped that one.
          get oldest_at() {
            return oldest();
          },
        };
      }
      return {
        spent_cents: sequential ? sums.draftSpent : sums.origSpent,
        count: sequential ? sums.draftCount : sums.origCount,
        get oldest_at() {
          return oldest();
        },
      };
    });
  }

  /** Oldest request still counted in window `k` (read only by a refusal's remedy). */
  private oldest(agent: AgentState, k: number, sequential: boolean): number | null {
    const bit = 1 << k;
    for (let i = agent.sums[k].head - agent.base; i < agent.entries.length; i++) {
      const e = agent.entries[i];
      if (e.mask & bit && (sequential ? e.draft : e.orig)) return e.at;
    }
    return null;
  }

  private agentState(agentId: string): AgentState {
    let state = this.agents.get(agentId);
    if (!state) {
      // History arrives agent by agent: the previous agent's state is no longer needed.
      this.agents.clear();
      state = {
        entries: [],
        base: 0,
        next: 0,
        sums: this.windows.map(() => ({ head: 0, origSpent: 0, origCount: 0, draftSpent: 0, draftCount: 0 })),
        releases: [],
      };
      this.agents.set(agentId, state);
    }
    return state;
  }

  /** Applies recorded releases up to `now` and slides every window's start to `now`. */
  private advance(agent: AgentState, now: number): void {
    while (agent.releases.length && agent.releases[0].at <= now) {
      const { entry, draftToo } = agent.releases.shift() as AgentState['releases'][number];
      this.count(agent, entry, -1, true, draftToo);
      entry.orig = false;
      if (draftToo) entry.draft = false;
    }
    let minHead = Infinity;
    this.windows.forEach((w, k) => {
      const since = w.since(now);
      const sums = agent.sums[k];
      const bit = 1 << k;
      while (sums.head < agent.next && agent.entries[sums.head - agent.base].at < since) {
        const e = agent.entries[sums.head - agent.base];
        if (e.mask & bit) {
          if (e.orig) {
            sums.origSpent -= e.cost;
            sums.origCount--;
          }
          if (e.draft) {
            sums.draftSpent -= e.cost;
            sums.draftCount--;
          }
        }
        sums.head++;
      }
      minHead = Math.min(minHead, sums.head);
    });
    if (minHead === Infinity) minHead = agent.next;
    const drop = minHead - agent.base;
    if (drop >= COMPACT_AT && drop * 2 >= agent.entries.length) {
      agent.entries.splice(0, drop);
      agent.base = minHead;
    }
  }

  /** Adds (+1) or removes (-1) an entry's contribution to the windows it is inside. */
  private count(agent: AgentState, e: Entry, sign: 1 | -1, orig: boolean, draft: boolean): void {
    for (let k = 0; k < this.windows.length; k++) {
      const sums = agent.sums[k];
      if (!(e.mask & (1 << k)) || e.seq < sums.head) continue;
      if (orig && e.orig) {
        sums.origSpent += sign * e.cost;
        sums.origCount += sign;
      }
      if (draft && e.draft) {
        sums.draftSpent += sign * e.cost;
        sums.draftCount += sign;
      }
    }
  }

  private mask(actionType: string): number {
    let mask = this.masks.get(actionType);
    if (mask === undefined) {
      mask = this.matchers.reduce((m, match, k) => (match(actionType) ? m | (1 << k) : m), 0);
      this.masks.set(actionType, mask);
    }
    return mask;
  }

  /** Records the request in the windows, the budget and the token under both histories. */
  private remember(agent: AgentState, record: HistoryRecord, draftOutcome: Outcome): void {
    const orig = outcomeCounts(record.outcome);
    const draft = outcomeCounts(draftOutcome);
    if (record.evaluated && record.spend_token_id) {
      if (orig) this.tokensOrig.add(record.spend_token_id);
      if (draft) this.tokensDraft.add(record.spend_token_id);
    }
    if (orig !== draft && record.amount_cents > 0) this.moveBudget(record, orig, draft);
    if (!orig && !draft) return;
    const mask = this.windows.length ? this.mask(record.action_type) : 0;
    if (mask === 0) return;
    const entry: Entry = { seq: agent.next++, at: record.at, cost: record.amount_cents, mask, orig, draft };
    agent.entries.push(entry);
    this.count(agent, entry, 1, true, true);
    if (orig && record.released_at !== null) {
      const release = { at: record.released_at, entry, draftToo: draft };
      const i = agent.releases.findIndex((r) => r.at > release.at);
      agent.releases.splice(i === -1 ? agent.releases.length : i, 0, release);
    }
  }

  private moveBudget(record: HistoryRecord, orig: boolean, draft: boolean): void {
    const delta = this.budgetDelta.get(record.budget_id) ?? 0;
    if (draft) {
      this.budgetDelta.set(record.budget_id, delta + record.amount_cents);
      return;
    }
    // Recorded as reserved and refused by the draft: the reservation is gone until its recorded release.
    this.budgetDelta.set(record.budget_id, delta - record.amount_cents);
    if (orig && record.released_at !== null) {
      const list = this.budgetReleases.get(record.budget_id) ?? [];
      list.push({ at: record.released_at, cost: record.amount_cents });
      list.sort((a, b) => a.at - b.at);
      this.budgetReleases.set(record.budget_id, list);
    }
  }

  /** A reservation the draft removed was released in the history too by now: the two agree again. */
  private releaseBudgets(budgetId: string, now: number): void {
    const list = this.budgetReleases.get(budgetId);
    while (list?.length && list[0].at <= now) {
      const { cost } = list.shift() as { cost: number };
      this.budgetDelta.set(budgetId, (this.budgetDelta.get(budgetId) ?? 0) + cost);
    }
  }

  private recordedRemedy(record: HistoryRecord): Remedy | null {
    return record.remedy_json === null ? null : (JSON.parse(record.remedy_json) as Remedy | null);
  }

  /** Counts the pair; true when the decision changed (outcome, rule or remedy). */
  private tally(record: HistoryRecord, replayed: DecisionVerdict): boolean {
    const s = this.summary;
    s.evaluated++;
    s.totals.before[record.outcome]++;
    s.totals.after[replayed.outcome]++;
    const amounts = (s.amounts[record.currency] ??= { before: zero(), after: zero() });
    amounts.before[record.outcome] += record.amount_cents;
    amounts.after[replayed.outcome] += record.amount_cents;
    if (replayed.rule !== null) this.ruleCounts.set(replayed.rule, (this.ruleCounts.get(replayed.rule) ?? 0) + 1);
    const changed =
      replayed.outcome !== record.outcome ||
      replayed.rule !== record.rule ||
      ((replayed.remedy !== null || (record.remedy_json !== null && record.remedy_json !== 'null')) && !isDeepStrictEqual(replayed.remedy, this.recordedRemedy(record)));
    if (changed) s.changed++;
    return changed;
  }
}

