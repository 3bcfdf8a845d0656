import { randomBytes } from 'node:crypto';
import { Answer, call, check, Check, pool, sleep, Tally } from './chaos-kit';
import { ChaosStack, ControlAgent } from './chaos-stack';

interface Authorization {
  key: string;
  final?: number;
  intentId?: string;
  cosignature?: string;
  ids: Set<string>;
}

const RETRYABLE = (a: Answer) => a.status === 'network' || a.status === 'timeout' || (typeof a.status === 'number' && (a.status >= 500 || a.status === 409));

/**
 * `count` payment authorizations of `amountCents` on one budget, at most `concurrency` in flight,
 * shared out between the control replicas; each retried with its idempotency key (on any replica)
 * after a 5xx, a 409 or a network error until answered. `during` runs beside them (the fault).
 */
export async function authorizeMany(
  stack: ChaosStack,
  agent: ControlAgent,
  opts: { count: number; concurrency: number; amountCents: number; retryUntil: () => number; onProgress?: (done: number) => void },
): Promise<{ authorizations: Authorization[]; tally: Tally; uncoded5xx: number; slow: number }> {
  const tally = new Tally();
  const prefix = randomBytes(4).toString('hex');
  let uncoded5xx = 0;
  let slow = 0;
  let done = 0;
  const authorizations: Authorization[] = Array.from({ length: opts.count }, (_, i) => ({ key: `${prefix}-${i}`, ids: new Set() }));
  await pool(
    authorizations.map((a, i) => async () => {
      for (let attempt = 0; ; attempt++) {
        const control = stack.controls[(i + attempt) % stack.controls.length];
        const answer = await call('POST', `${control.url}/control/v1/agent/payment_intents`, {
          headers: { Authorization: `Bearer ${agent.key}` },
          body: { budget_id: agent.budgetId, amount_cents: opts.amountCents, counterparty: 'acme', idempotency_key: a.key, metadata: { chaos: true } },
          timeoutMs: 15_000,
        });
        tally.add(answer);
        if (answer.ms > 2000) slow += 1;
        if (typeof answer.status === 'number' && answer.status >= 500 && !answer.body?.error?.code) uncoded5xx += 1;
        if (typeof answer.status === 'number' && answer.status < 300 && answer.body?.data?.id) {
          a.ids.add(answer.body.data.id);
          a.intentId = answer.body.data.id;
          a.cosignature ??= answer.body.cosignature?.authorization ?? answer.body.cosignature?.token ?? (typeof answer.body.cosignature === 'string' ? answer.body.cosignature : undefined);
        }
        if (!RETRYABLE(answer)) {
          a.final = answer.status as number;
          break;
        }
        if (Date.now() > opts.retryUntil()) break;
        await sleep(150 + Math.random() * 250);
      }
      opts.onProgress?.(++done);
    }),
    opts.concurrency,
  );
  return { authorizations, tally, uncoded5xx, slow };
}

/**
 * The budget against what the agents were told: reserved (and spent) never above the budget and
 * equal to the intents holding it, every 2xx decision one intent with its audit row, every key one
 * intent; then each cosignature consumed twice at once (on different replicas): exactly one wins.
 */
export async function checkBudget(
  stack: ChaosStack,
  agent: ControlAgent,
  authorizations: Authorization[],
  consumeLimit: number,
): Promise<{ checks: Check[]; lost: number; duplicated: number; partial: number; figures: Record<string, number>; consumeTally: Tally }> {
  const db = stack.controlDb;
  const [budget] = (await db.query(`SELECT budget_cents::bigint AS budget, reserved_cents::bigint AS reserved, spent_cents::bigint AS spent FROM budgets WHERE id = $1`, [agent.budgetId])).rows;
  const [{ held }] = (await db.query(`SELECT coalesce(sum(reserved_cents), 0)::bigint AS held FROM intents WHERE budget_id = $1`, [agent.budgetId])).rows;
  const intents = (
    await db.query(
      `SELECT i.idempotency_key AS key, i.id::text AS id, i.http_status, (SELECT count(*) FROM audit_events a WHERE a.subject_id = i.id)::int AS audits
       FROM intents i WHERE i.budget_id = $1`,
      [agent.budgetId],
    )
  ).rows as { key: string; id: string; http_status: number; audits: number }[];
  const byKey = new Map<string, typeof intents>();
  for (const row of intents) byKey.set(row.key, [...(byKey.get(row.key) ?? []), row]);
  let lost = 0;
  let duplicated = 0;
  let noAudit = 0;
  let unanswered = 0;
  let answeredTwice = 0;
  let allowed = 0;
  for (const a of authorizations) {
    const rows = byKey.get(a.key) ?? [];
    if (rows.length > 1) duplicated += rows.length - 1;
    if (a.final === undefined) {
      unanswered += 1;
      continue;
    }
    if (a.ids.size > 1) answeredTwice += 1;
    if (a.final < 300) {
      if (a.final === 201) allowed += 1;
      const row = rows.find((r) => r.id === a.intentId);
      if (!row) lost += 1;
      else if (row.audits === 0) noAudit += 1;
    }
  }
  const within = BigInt(budget.reserved) + BigInt(budget.spent) <= BigInt(budget.budget);
  const consistent = BigInt(budget.reserved) === BigInt(held);

  // Each cosignature spent twice at once, on two replicas: one consume wins, the other is refused.
  const consumeTally = new Tally();
  const tokens = authorizations.map((a) => a.cosignature).filter((t): t is string => !!t).slice(0, consumeLimit);
  let doubleSpent = 0;
  let neverSpent = 0;
  await pool(
    tokens.map((token, i) => async () => {
      const answers = await Promise.all(
        [0, 1].map((k) =>
          call('POST', `${stack.controls[(i + k) % stack.controls.length].url}/control/v1/cosign/consume`, { body: { authorization: token, consumed_by: `chaos-${k}` } }),
        ),
      );
      answers.forEach((a) => consumeTally.add(a));
      const wins = answers.filter((a) => a.status === 200 && a.body?.data?.valid !== false).length;
      if (wins > 1) doubleSpent += 1;
      if (wins === 0) neverSpent += 1;
    }),
    20,
  );
  const [{ consumed }] = (await db.query(`SELECT count(*)::int AS consumed FROM intents WHERE budget_id = $1 AND cosign_consumed_at IS NOT NULL`, [agent.budgetId])).rows;
  return {
    lost,
    duplicated,
    partial: noAudit + (consistent ? 0 : 1),
    consumeTally,
    figures: {
      'budget (cents)': Number(budget.budget),
      'reserved + spent (cents)': Number(budget.reserved) + Number(budget.spent),
      'allowed (201)': allowed,
      'cosignatures consumed twice at once': tokens.length,
    },
    checks: [
      check('reserved never exceeds the budget', within, `reserved ${budget.reserved} + spent ${budget.spent} of ${budget.budget}`),
      check('budget reservation equals its intents', consistent, `budget reserved ${budget.reserved}, intents hold ${held}`),
      check('every 2xx decision has its intent and audit row', lost === 0 && noAudit === 0, `${lost} 2xx answers without their intent, ${noAudit} intents without an audit row`),
      check('one intent per key, one answer per key', duplicated === 0 && answeredTwice === 0, `${duplicated} extra intents, ${answeredTwice} keys answered with two intents`),
      check('every authorization answered', unanswered === 0, `${unanswered} still unanswered when retries stopped`),
      check('consumes stay single', doubleSpent === 0 && neverSpent === 0 && consumed === tokens.length, `${tokens.length} cosignatures: ${doubleSpent} consumed twice, ${neverSpent} never, ${consumed} marked consumed`),
    ],
  };
}
