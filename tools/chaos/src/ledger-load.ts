import { randomBytes } from 'node:crypto';
import { booksProblems } from '@bursar/testing';
import { Answer, check, Check, sleep, Tally } from './chaos-kit';
import { ChaosStack, LEDGER_ACCOUNTS } from './chaos-stack';

/** What one idempotency key went through: every answer's transaction id must be the same one. */
interface KeyRecord {
  attempts: number;
  last?: Answer['status'];
  startedAt: number;
  final?: number;
  ids: Set<string>;
  replays: number;
}

const RETRYABLE = (a: Answer) => a.status === 'network' || a.status === 'timeout' || (typeof a.status === 'number' && (a.status >= 500 || a.status === 409));

/**
 * `writers` concurrent clients posting two-leg transfers between a few accounts, each with its own
 * Idempotency-Key, retried with the same key (on any replica) after a 5xx, a 409 in_progress or a
 * network error until answered. Outage observations: answers that took longer than 2 s, 500s, 503s
 * without an error code.
 */
export class LedgerWriters {
  readonly keys = new Map<string, KeyRecord>();
  readonly tally = new Tally();
  slowAnswers = 0;
  uncoded5xx = 0;
  /** The first few answers no fault excuses (500s), to explain them. */
  readonly oddities: string[] = [];
  private stopped = false;
  private running: Promise<void>[] = [];
  private readonly prefix = randomBytes(4).toString('hex');
  private n = 0;

  private stoppedAt = Infinity;
  /** The webhook receiver's count when these writers were made: later receipts are this scenario's. */
  readonly receiptsAtStart: number;

  constructor(
    private readonly stack: ChaosStack,
    /** How long keys keep being retried once the load stops; still unanswered then, they are reported. */
    private readonly retryMs: number,
  ) {
    this.receiptsAtStart = stack.receiver.received.length;
  }

  start(writers: number): void {
    this.running = Array.from({ length: writers }, (_, w) => this.writer(w));
  }

  /** Stops new keys and waits until every started key is answered or gave up. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.stoppedAt = Date.now();
    await Promise.all(this.running);
  }

  private async writer(w: number): Promise<void> {
    while (!this.stopped) await this.submit(`${this.prefix}-${w}-${this.n++}`, w);
  }

  private body() {
    const currencies = Object.keys(LEDGER_ACCOUNTS);
    const currency = currencies[Math.floor(Math.random() * currencies.length)];
    const accounts = LEDGER_ACCOUNTS[currency];
    const i = Math.floor(Math.random() * accounts.length);
    const j = (i + 1 + Math.floor(Math.random() * (accounts.length - 1))) % accounts.length;
    const amount = String(1 + Math.floor(Math.random() * 10_000));
    return {
      postings: [
        { account: accounts[j], amount, currency, direction: 'debit' },
        { account: accounts[i], amount, currency, direction: 'credit' },
      ],
    };
  }

  private async submit(key: string, w: number): Promise<void> {
    const record: KeyRecord = { attempts: 0, ids: new Set(), replays: 0, startedAt: Date.now() };
    this.keys.set(key, record);
    const body = this.body();
    for (;;) {
      const replica = (w + record.attempts) % this.stack.ledgers.length;
      record.attempts += 1;
      const answer = await this.stack.ledgerCall('POST', '/transactions', body, replica, { 'Idempotency-Key': key });
      this.tally.add(answer);
      record.last = answer.status;
      if (answer.ms > 2000) this.slowAnswers += 1;
      if (answer.status === 500 && this.oddities.length < 3) this.oddities.push(`${answer.status} ${JSON.stringify(answer.body)}`);
      if (typeof answer.status === 'number' && answer.status >= 500 && !answer.body?.error?.code) this.uncoded5xx += 1;
      if (typeof answer.status === 'number' && answer.status < 300) {
        const id = answer.body?.data?.id ?? answer.body?.id;
        if (id) record.ids.add(id);
        if (answer.headers?.get('idempotent-replayed') === 'true') record.replays += 1;
      }
      if (!RETRYABLE(answer)) {
        record.final = answer.status as number;
        return;
      }
      if (Date.now() > this.stoppedAt + this.retryMs) return;
      await sleep(150 + Math.random() * 250);
    }
  }

  answered2xx(): number {
    return [...this.keys.values()].filter((k) => k.final !== undefined && k.final < 300).length;
  }
}

/**
 * The books against what the writers were told: every key answered 2xx is exactly one transaction
 * (the one every answer named), keys never answered 2xx wrote nothing, no transaction lacks its
 * postings or balances, every currency nets to zero, every balance equals its postings.
 */
export async function checkBooks(stack: ChaosStack, writers: LedgerWriters): Promise<{ checks: Check[]; lost: number; duplicated: number; partial: number; figures: Record<string, number> }> {
  const db = stack.ledgerDb;
  const rows = (
    await db.query(`SELECT idempotency_key AS key, array_agg(id::text) AS ids FROM transactions WHERE ledger_id = $1 AND idempotency_key = ANY($2) GROUP BY idempotency_key`, [
      stack.ledgerId,
      [...writers.keys.keys()],
    ])
  ).rows as { key: string; ids: string[] }[];
  const written = new Map(rows.map((r) => [r.key, r.ids]));
  let lost = 0;
  let duplicated = 0;
  let mismatched = 0;
  let unacknowledged = 0;
  let unanswered = 0;
  let answeredTwice = 0;
  let replayed = 0;
  let retried = 0;
  let example = '';
  const unansweredLast = new Tally();
  for (const [key, record] of writers.keys) {
    const ids = written.get(key) ?? [];
    if (record.attempts > 1) retried += 1;
    replayed += record.replays;
    if (record.final === undefined) {
      unanswered += 1;
      unansweredLast.add({ status: `${record.last} after ${record.attempts} attempts over ${Math.round((Date.now() - record.startedAt) / 1000)}s` as never, ms: 0, body: undefined, headers: undefined });
      continue;
    }
    if (record.final < 300) {
      if (ids.length === 0) lost += 1;
      if (ids.length > 1) duplicated += ids.length - 1;
      if (record.ids.size > 1) answeredTwice += 1;
      if (ids.length === 1 && !record.ids.has(ids[0])) {
        mismatched += 1;
        example ||= ` (e.g. key ${key}: answered ${[...record.ids].join('/') || 'no id'}, stored ${ids[0]})`;
      }
    } else if (ids.length > 0) unacknowledged += 1;
  }
  const [{ bare, unbalanced_tx: unbalancedTx }] = (
    await db.query(
      `SELECT count(*) FILTER (WHERE n = 0)::int AS bare, count(*) FILTER (WHERE n > 0 AND net <> 0)::int AS unbalanced_tx FROM (
         SELECT t.id, count(p.id) AS n, coalesce(sum(CASE p.direction WHEN 'debit' THEN p.amount ELSE -p.amount END), 0) AS net
         FROM transactions t LEFT JOIN postings p ON p.transaction_id = t.id WHERE t.ledger_id = $1 GROUP BY t.id) x`,
      [stack.ledgerId],
    )
  ).rows;
  // The books' own invariants (currencies net to zero, balance rows equal their postings, no overdraft past its floor).
  const problems = await booksProblems(db, stack.ledgerId);
  const partial = bare + unbalancedTx;
  return {
    lost,
    duplicated,
    partial,
    figures: { 'keys answered 2xx': writers.answered2xx(), 'keys retried': retried, 'replayed answers': replayed },
    checks: [
      check('every 2xx is exactly one transaction', lost === 0 && duplicated === 0 && mismatched === 0, `${writers.answered2xx()} keys answered 2xx: ${lost} without a transaction, ${duplicated} extra, ${mismatched} naming another transaction${example}`),
      check('every retried key answered with one transaction', answeredTwice === 0, `${answeredTwice} keys answered with two different transactions over ${retried} retried keys`),
      check('keys refused wrote nothing', unacknowledged === 0, `${unacknowledged} keys answered 4xx have a transaction`),
      check('every key answered', unanswered === 0, `${unanswered} keys still unanswered when retries stopped${unanswered ? ` (last answers: ${unansweredLast})` : ''}`),
      check('no partial write', partial === 0, `${bare} transactions without postings, ${unbalancedTx} unbalanced transactions`),
      check('the books hold their invariants', problems.length === 0, problems.length === 0 ? 'every currency nets to zero, every balance row equals its postings' : problems.join('; ')),
    ],
  };
}

/**
 * The books log after a scenario: every change of the ledger sealed exactly once (one entry per
 * change, none left out), in commit order, and the whole log verified from the rows by
 * `ledger:admin verify-log`. Seal lag is how long changes waited to be sealed.
 */
export async function checkBooksLog(stack: ChaosStack): Promise<{ checks: Check[]; figures: Record<string, number | string> }> {
  const signed = await stack.ledgerCall('POST', '/log/checkpoints');
  const db = stack.ledgerDb;
  const [counts] = (
    await db.query(
      `SELECT (SELECT count(*)::int FROM ledger_log_changes WHERE log_id = $1) AS changes,
              (SELECT count(*)::int FROM log_entries WHERE log_id = $1) AS entries,
              (SELECT count(DISTINCT source_id)::int FROM log_entries WHERE log_id = $1) AS sources,
              (SELECT count(*)::int FROM (SELECT (xid, seq) < lag((xid, seq)) OVER (ORDER BY index) AS back FROM log_entries WHERE log_id = $1) o WHERE back) AS backwards,
              (SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM sealed_at - committed_at) * 1000) FROM log_entries WHERE log_id = $1) AS lag_p50,
              (SELECT percentile_disc(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM sealed_at - committed_at) * 1000) FROM log_entries WHERE log_id = $1) AS lag_p99`,
      [stack.ledgerId],
    )
  ).rows;
  let verified = 'verify-log found nothing';
  const ok = await stack.ledgerAdmin('verify-log', '--ledger', stack.ledgerId).then(
    (report: { ok: boolean }) => report.ok,
    (err: Error) => ((verified = err.message.slice(0, 300)), false),
  );
  return {
    figures: { 'log entries': counts.entries, 'seal lag p50 (ms)': Math.round(counts.lag_p50 ?? 0), 'seal lag p99 (ms)': Math.round(counts.lag_p99 ?? 0) },
    checks: [
      check('a checkpoint of the books log is signed after the load', signed.status === 201, `POST /log/checkpoints answered ${signed.status}`),
      check(
        'every change sealed exactly once, in commit order',
        counts.changes === counts.entries && counts.sources === counts.entries && counts.backwards === 0,
        `${counts.changes} changes, ${counts.entries} entries from ${counts.sources} sources, ${counts.backwards} out of commit order`,
      ),
      check('the books log verifies against the rows and its checkpoints', ok, verified),
    ],
  };
}

/**
 * Waits until the receiver holds every event of the ledger at least once and every delivery
 * succeeded (or `timeoutMs` passes); reports missing events, and duplicate receipts from index `from` on.
 */
export async function checkDeliveries(stack: ChaosStack, timeoutMs: number, from: number): Promise<{ checks: Check[]; figures: Record<string, number>; duplicates: number }> {
  const started = Date.now();
  const deadline = started + timeoutMs;
  let missing: string[] = [];
  let pending = 0;
  let dead = 0;
  let events = 0;
  for (;;) {
    const ids = (await stack.ledgerDb.query(`SELECT id::text FROM events WHERE ledger_id = $1`, [stack.ledgerId])).rows.map((r) => r.id as string);
    events = ids.length;
    const received = new Set(stack.receiver.received.map((r) => r.headers['bursar-event-id'] as string));
    missing = ids.filter((id) => !received.has(id));
    const [counts] = (
      await stack.ledgerDb.query(`SELECT count(*) FILTER (WHERE status = 'pending')::int AS pending, count(*) FILTER (WHERE status = 'dead')::int AS dead FROM webhook_deliveries`)
    ).rows;
    ({ pending, dead } = counts);
    if ((missing.length === 0 && pending === 0) || Date.now() > deadline) break;
    await sleep(250);
  }
  // Receipts since `from` (this scenario's) of an event the receiver already had: at-least-once's extra copies.
  const ids = stack.receiver.received.map((r) => r.headers['bursar-event-id'] as string);
  const before = new Set(ids.slice(0, from));
  let duplicates = 0;
  for (const id of ids.slice(from)) {
    if (before.has(id)) duplicates += 1;
    before.add(id);
  }
  return {
    duplicates,
    figures: {
      'deliveries drained after the load (ms)': Date.now() - started,
      'events recorded (all scenarios)': events,
      'webhook receipts (this scenario)': ids.length - from,
      'duplicate receipts (this scenario)': duplicates,
    },
    checks: [
      check('every event delivered at least once', missing.length === 0, `${missing.length} of ${events} events never reached the receiver`),
      check('every delivery succeeded', pending === 0 && dead === 0, `${pending} deliveries still pending, ${dead} dead`),
    ],
  };
}

/**
 * A client tailing GET /events the way issue 15 describes: newest first, page by page, down to the
 * newest event it already holds. Events that commit behind that one are never seen (the defect
 * issue 15 tracks); `missed()` counts the ledger's events it never saw.
 */
export class EventsPoller {
  private readonly seen = new Set<string>();
  private newest: string | undefined;
  private stopped = false;
  private running: Promise<void> | undefined;
  polls = 0;

  constructor(private readonly stack: ChaosStack) {}

  start(): void {
    this.running = (async () => {
      while (!this.stopped) {
        await this.poll();
        await sleep(100);
      }
    })();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
    await this.poll();
  }

  private async poll(): Promise<void> {
    this.polls += 1;
    let cursor: string | undefined;
    let first: string | undefined;
    for (let page = 0; page < 50; page++) {
      const answer = await this.stack.ledgerCall('GET', `/events?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      if (answer.status !== 200) return;
      const events = answer.body.data as { id: string }[];
      first ??= events[0]?.id;
      for (const event of events) {
        if (event.id === this.newest) {
          this.newest = first;
          return;
        }
        this.seen.add(event.id);
      }
      if (!answer.body.has_more) break;
      cursor = answer.body.next_cursor;
    }
    this.newest = first ?? this.newest;
  }

  async missed(): Promise<{ missed: number; events: number }> {
    const ids = (await this.stack.ledgerDb.query(`SELECT id::text FROM events WHERE ledger_id = $1`, [this.stack.ledgerId])).rows.map((r) => r.id as string);
    return { missed: ids.filter((id) => !this.seen.has(id)).length, events: ids.length };
  }
}
