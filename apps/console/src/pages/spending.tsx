import { ReactElement, useState } from 'react';
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { Schemas } from '../api/client';
import { useConsole } from '../context';
import { ErrorBox, money, Table } from '../ui';

const RANGES = { '24h': 24 * 3600_000, '7d': 7 * 86400_000, '30d': 30 * 86400_000 } as const;
type Range = keyof typeof RANGES;
/** The route's outcomes, shown as the words the console uses elsewhere. */
const OUTCOMES = { allowed: 'allowed', requires_approval: 'held', denied: 'denied' } as const;
type Outcome = keyof typeof OUTCOMES;
const OUTCOME_ORDER = Object.keys(OUTCOMES) as Outcome[];
const COLORS: Record<Outcome, string> = { allowed: '#2e7d32', requires_approval: '#b26a00', denied: '#c62828' };
type Figure = Schemas['SpendingTotalSchema'];

/** The range ends when it is chosen, so the query (and its cache key) stays put until the person picks again. */
const windowOf = (range: Range) => {
  const to = new Date();
  return { range, from: new Date(to.getTime() - RANGES[range]).toISOString(), to: to.toISOString() };
};

/**
 * Spending: decided volume per outcome over time and per agent, and the rules that denied most.
 * Control adds the decisions up (`GET …/spending`); the page only lays the figures out.
 */
export function SpendingPage() {
  const { $api, workspace } = useConsole();
  const [span, setSpan] = useState(() => windowOf('7d'));
  const [chosenCurrency, setCurrency] = useState<string | null>(null);
  const granularity = span.range === '24h' ? 'hour' : 'day';
  const summary = $api.useQuery('get', '/control/v1/workspaces/{workspace_slug}/spending', {
    params: { path: { workspace_slug: workspace.slug }, query: { from: span.from, to: span.to, granularity } },
  });

  const d = summary.data?.data;
  const currencies = [...new Set(d?.totals.map((t) => t.currency))];
  const currency = chosenCurrency && currencies.includes(chosenCurrency) ? chosenCurrency : currencies[0];
  const inCurrency = <T extends Figure>(rows: T[]) => rows.filter((r) => r.currency === currency);

  return (
    <section aria-labelledby="spending-title">
      <h1 id="spending-title">Spending</h1>
      <div className="filters">
        <div role="radiogroup" aria-label="Range" className="filters">
          {(Object.keys(RANGES) as Range[]).map((r) => (
            <label key={r}>
              <input type="radio" name="range" checked={span.range === r} onChange={() => setSpan(windowOf(r))} /> Last {r}
            </label>
          ))}
        </div>
        {currencies.length > 1 && (
          <label>
            Currency
            <select value={currency} onChange={(e) => setCurrency(e.target.value)}>
              {currencies.map((c) => (
                <option key={c}>{c}</option>
              ))}
            </select>
          </label>
        )}
      </div>
      <ErrorBox error={summary.error} />
      {!d ? (
        !summary.error && <p aria-busy="true">Loading…</p>
      ) : d.totals.length === 0 ? (
        <p className="empty">No decisions in the last {span.range}.</p>
      ) : (
        <>
          <Table head={['Outcome', 'Decisions', 'Amount']} testId="spending-totals">
            {inCurrency(d.totals)
              .sort((a, b) => OUTCOME_ORDER.indexOf(a.outcome as Outcome) - OUTCOME_ORDER.indexOf(b.outcome as Outcome))
              .map((t) => (
                <tr key={t.outcome} data-outcome={t.outcome}>
                  <td>{OUTCOMES[t.outcome as Outcome] ?? t.outcome}</td>
                  <td>{t.count}</td>
                  <td>{money(t.amount_cents, t.currency)}</td>
                </tr>
              ))}
          </Table>
          <h2>Volume over time by outcome</h2>
          <OutcomeChart
            testId="chart-time"
            height={260}
            data={timeline(inCurrency(d.timeline), d.from, d.to, granularity)}
            currency={currency}
            xAxis={<XAxis dataKey="label" />}
            yAxis={<YAxis tickFormatter={cents} />}
          />
          <h2>Volume per agent</h2>
          <PerAgent rows={inCurrency(d.agents)} currency={currency} />
          <h2>Top denial rules</h2>
          <DenialRules rows={inCurrency(d.rules).filter((r) => r.outcome === 'denied')} />
        </>
      )}
    </section>
  );
}

type Row = Record<Outcome, number>;
const zero = (): Row => ({ allowed: 0, requires_approval: 0, denied: 0 });

/** The route lists only buckets with decisions; the chart shows every bucket of the range. */
function timeline(rows: Schemas['SpendingBucketSchema'][], from: string, to: string, granularity: 'hour' | 'day') {
  const size = granularity === 'hour' ? 3600_000 : 86400_000;
  const buckets = new Map<number, Row>();
  for (let t = Math.floor(Date.parse(from) / size) * size; t < Date.parse(to); t += size) buckets.set(t, zero());
  for (const r of rows) {
    const row = buckets.get(Date.parse(r.bucket));
    if (row) row[r.outcome as Outcome] += r.amount_cents;
  }
  const label = (t: number) => (granularity === 'hour' ? `${new Date(t).getHours()}:00` : new Date(t).toLocaleDateString(undefined, { month: 'short', day: 'numeric' }));
  return [...buckets].map(([t, row]) => ({ label: label(t), ...row }));
}

function PerAgent({ rows, currency }: { rows: Schemas['SpendingAgentSchema'][]; currency: string | undefined }) {
  const agents = new Map<string, Row & { agent: string }>();
  for (const r of rows) {
    const row = agents.get(r.agent_id) ?? { agent: r.agent_name ?? r.agent_id.slice(0, 8), ...zero() };
    row[r.outcome as Outcome] += r.amount_cents;
    agents.set(r.agent_id, row);
  }
  const data = [...agents.values()];
  return (
    <OutcomeChart
      testId="chart-agents"
      height={Math.max(120, data.length * 40 + 60)}
      data={data}
      layout="vertical"
      currency={currency}
      xAxis={<XAxis type="number" tickFormatter={cents} />}
      yAxis={<YAxis type="category" dataKey="agent" width={110} />}
    />
  );
}

const cents = (v: number) => String(v / 100);

/** Amounts stacked by outcome, one bar per row of `data`; the axes say which way the bars run. */
function OutcomeChart(props: { testId: string; height: number; data: object[]; layout?: 'vertical'; currency: string | undefined; xAxis: ReactElement; yAxis: ReactElement }) {
  return (
    <div className="chart" data-testid={props.testId}>
      <ResponsiveContainer width="100%" height={props.height}>
        <BarChart data={props.data} layout={props.layout}>
          <CartesianGrid strokeDasharray="3 3" />
          {props.xAxis}
          {props.yAxis}
          <Tooltip formatter={(v) => money(Number(v), props.currency)} />
          <Legend />
          {OUTCOME_ORDER.map((o) => (
            <Bar key={o} dataKey={o} name={OUTCOMES[o]} stackId="o" fill={COLORS[o]} isAnimationActive={false} />
          ))}
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}

function DenialRules({ rows }: { rows: Schemas['SpendingRuleSchema'][] }) {
  if (rows.length === 0) return <p className="empty">Nothing was denied.</p>;
  return (
    <Table head={['Rule', 'Denials', 'Amount denied']} testId="denial-rules">
      {rows.slice(0, 10).map((r) => (
        <tr key={r.rule}>
          <td>{r.rule}</td>
          <td>{r.count}</td>
          <td>{money(r.amount_cents, r.currency)}</td>
        </tr>
      ))}
    </Table>
  );
}
