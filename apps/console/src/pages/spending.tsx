import { useState } from 'react';
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { Schemas, unwrap } from '../api/client';
import { useConsole } from '../context';
import { ErrorBox, money, useLoad } from '../ui';

const RANGES = { '24h': 24 * 3600_000, '7d': 7 * 86400_000, '30d': 30 * 86400_000 } as const;
type Range = keyof typeof RANGES;
const OUTCOMES = ['allowed', 'held', 'denied'] as const;
type Outcome = (typeof OUTCOMES)[number];
const COLORS: Record<Outcome, string> = { allowed: '#2e7d32', held: '#b26a00', denied: '#c62828' };
/** Decision audit events: `payment_intent.<outcome>` and `action.<outcome>`. */
const DECISION = /^(payment_intent|action)\.(allowed|denied|requires_approval)$/;
const MAX_PAGES = 25;

interface Point {
  at: number;
  agent: string;
  outcome: Outcome;
  cents: number;
  rule: string | null;
}

function pointOf(e: Schemas['AuditEventSchema']): Point | null {
  const m = DECISION.exec(e.action);
  if (!m) return null;
  const s = e.snapshot as { amount_cents?: number; cost_cents?: number; decision?: { rule?: string | null }; decision_context?: { decision?: { rule?: string | null } } };
  return {
    at: Date.parse(e.created_at),
    agent: e.actor?.id ?? 'unknown',
    outcome: m[2] === 'requires_approval' ? 'held' : (m[2] as Outcome),
    cents: Number(s.amount_cents ?? s.cost_cents ?? 0),
    rule: s.decision?.rule ?? s.decision_context?.decision?.rule ?? null,
  };
}

/**
 * Spending: authorized volume per outcome over time and per agent, and the rules that denied most.
 * Control has no aggregate route, so this reads the decision audit events of the range (newest
 * first, stopping at the range's start).
 */
export function SpendingPage() {
  const { api, workspace } = useConsole();
  const [range, setRange] = useState<Range>('7d');
  const path = { workspace_slug: workspace.slug };
  const data = useLoad(async () => {
    const since = Date.now() - RANGES[range];
    const points: Point[] = [];
    let cursor: string | undefined;
    let truncated = false;
    for (let page = 0; ; page++) {
      if (page === MAX_PAGES) {
        truncated = true;
        break;
      }
      const res = await unwrap(api.GET('/control/v1/workspaces/{workspace_slug}/audit_events', { params: { path, query: { limit: 200, ...(cursor ? { starting_after: cursor } : {}) } } }));
      const older = res.data.some((e) => Date.parse(e.created_at) < since);
      for (const e of res.data) {
        const p = pointOf(e);
        if (p && p.at >= since) points.push(p);
      }
      if (older || !res.has_more || !res.next_cursor) break;
      cursor = res.next_cursor;
    }
    const agents = (await unwrap(api.GET('/control/v1/workspaces/{workspace_slug}/agents', { params: { path, query: { limit: 200 } } }))).data;
    return { points, since, truncated, names: new Map(agents.map((a) => [a.id, a.name])) };
  }, [api, workspace.slug, range]);

  const d = data.data;
  const bucketMs = range === '24h' ? 3600_000 : 86400_000;
  const timeline = d ? buckets(d.points, d.since, bucketMs) : [];
  const perAgent = d ? byAgent(d.points, d.names) : [];
  const rules = d ? topDenialRules(d.points) : [];

  return (
    <section aria-labelledby="spending-title">
      <h1 id="spending-title">Spending</h1>
      <div role="radiogroup" aria-label="Range" className="filters">
        {(Object.keys(RANGES) as Range[]).map((r) => (
          <label key={r}>
            <input type="radio" name="range" checked={range === r} onChange={() => setRange(r)} /> Last {r}
          </label>
        ))}
      </div>
      <ErrorBox error={data.error} />
      {!d ? (
        !data.error && <p aria-busy="true">Loading…</p>
      ) : d.points.length === 0 ? (
        <p className="empty">No decisions in the last {range}.</p>
      ) : (
        <>
          {d.truncated && <p className="note">Only the most recent {MAX_PAGES * 200} events of the range are counted.</p>}
          <h2>Volume over time by outcome</h2>
          <div className="chart" data-testid="chart-time">
            <ResponsiveContainer width="100%" height={260}>
              <BarChart data={timeline}>
                <CartesianGrid strokeDasharray="3 3" />
                <XAxis dataKey="label" />
                <YAxis tickFormatter={(v: number) => String(v / 100)} />
                <Tooltip formatter={(v) => money(Number(v))} />
                <Legend />
                {OUTCOMES.map((o) => (
                  <Bar key={o} dataKey={o} stackId="o" fill={COLORS[o]} isAnimationActive={false} />
                ))}
              </BarChart>
            </ResponsiveContainer>
          </div>
          <h2>Volume per agent</h2>
          <div className="chart" data-testid="chart-agents">
            <ResponsiveContainer width="100%" height={Math.max(120, perAgent.length * 40 + 60)}>
              <BarChart data={perAgent} layout="vertical">
                <CartesianGrid strokeDasharray="3 3" />
                <XAxis type="number" tickFormatter={(v: number) => String(v / 100)} />
                <YAxis type="category" dataKey="agent" width={110} />
                <Tooltip formatter={(v) => money(Number(v))} />
                <Legend />
                {OUTCOMES.map((o) => (
                  <Bar key={o} dataKey={o} stackId="o" fill={COLORS[o]} isAnimationActive={false} />
                ))}
              </BarChart>
            </ResponsiveContainer>
          </div>
          <h2>Top denial rules</h2>
          {rules.length === 0 ? (
            <p className="empty">Nothing was denied.</p>
          ) : (
            <table>
              <thead>
                <tr>
                  <th>Rule</th>
                  <th>Denials</th>
                  <th>Amount denied</th>
                </tr>
              </thead>
              <tbody>
                {rules.map((r) => (
                  <tr key={r.rule}>
                    <td>{r.rule}</td>
                    <td>{r.count}</td>
                    <td>{money(r.cents)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      )}
    </section>
  );
}

type Row = Record<Outcome, number>;
const zero = (): Row => ({ allowed: 0, held: 0, denied: 0 });

function buckets(points: Point[], since: number, size: number) {
  const start = Math.floor(since / size) * size;
  const rows = new Map<number, Row>();
  for (let t = start; t <= Date.now(); t += size) rows.set(t, zero());
  for (const p of points) {
    const row = rows.get(Math.floor(p.at / size) * size);
    if (row) row[p.outcome] += p.cents;
  }
  const label = (t: number) => (size < 86400_000 ? `${new Date(t).getHours()}:00` : new Date(t).toLocaleDateString(undefined, { month: 'short', day: 'numeric' }));
  return [...rows].map(([t, row]) => ({ label: label(t), ...row }));
}

function byAgent(points: Point[], names: Map<string, string>) {
  const rows = new Map<string, Row>();
  for (const p of points) {
    const row = rows.get(p.agent) ?? zero();
    row[p.outcome] += p.cents;
    rows.set(p.agent, row);
  }
  return [...rows].map(([id, row]) => ({ agent: names.get(id) ?? id.slice(0, 8), ...row }));
}

function topDenialRules(points: Point[]) {
  const rules = new Map<string, { rule: string; count: number; cents: number }>();
  for (const p of points) {
    if (p.outcome !== 'denied') continue;
    const key = p.rule ?? '(unnamed)';
    const r = rules.get(key) ?? { rule: key, count: 0, cents: 0 };
    r.count += 1;
    r.cents += p.cents;
    rules.set(key, r);
  }
  return [...rules.values()].sort((a, b) => b.count - a.count).slice(0, 10);
}
