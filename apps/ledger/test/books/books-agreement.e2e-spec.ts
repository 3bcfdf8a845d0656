import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import request from 'supertest';
import { BooksApi, Json, startBooksApp } from '../books-api';
import { LedgerTestApp } from '../ledger-test-app';

/**
 * The ledger judges a new transaction on several paths: a dry run, a single write, a bulk item, an
 * atomic bulk item. This suite sends each request on every path, over the HTTP API only, against
 * twin ledgers that share one history, and holds the paths to one verdict (accepted, or refused
 * with one error code). The dry run must also leave the books as they were and foretell the write
 * that follows it; corrections, commits, reserve operations and closes, which have one form, shape
 * every twin alike; after each step the twins' books are equal. Whatever engine sits behind the
 * routes, the paths must agree.
 */

/** `ok`, `replayed`, or the error code of a refusal. */
type Verdict = string;

/** Each twin ledger takes the history's new transactions on its own path. */
const PATHS = ['single', 'bulk', 'atomic bulk'] as const;

const UNKNOWN = 'ghost';
/** Closed when the twins are set up. */
const CLOSED = 'shut';
const RESERVE_TEMPLATE = 'hold';

/** [id, type, currency, options]: each overdraft policy, limits, both normal sides, two currencies. */
const ACCOUNTS: [string, string, string, Json][] = [
  ['cash', 'asset', 'USD', {}],
  ['spend', 'expense', 'USD', { overdraft_policy: 'none' }],
  ['wallet:a', 'liability', 'USD', { overdraft_policy: 'none' }],
  ['wallet:b', 'liability', 'USD', { overdraft_policy: 'none', overdraft_limit: '300' }],
  ['wallet:c', 'liability', 'USD', { overdraft_policy: 'allowed', overdraft_limit: '300' }],
  ['spare', 'liability', 'USD', { overdraft_policy: 'none' }],
  ['sales', 'revenue', 'USD', {}],
  [CLOSED, 'liability', 'USD', {}],
  ['eur:cash', 'asset', 'EUR', { overdraft_policy: 'none' }],
  ['eur:capital', 'equity', 'EUR', {}],
];
const CURRENCY = new Map(ACCOUNTS.map(([id, , currency]) => [id, currency]));

/** Closable with the period close API; VALUE_DATES sit at their edges and inside them. */
const PERIODS = [
  ['2020-01-01T00:00:00.000Z', '2020-02-01T00:00:00.000Z'],
  ['2020-02-01T00:00:00.000Z', '2020-03-01T00:00:00.000Z'],
];
const VALUE_DATES = ['2020-01-01T00:00:00.000Z', '2020-01-20T00:00:00.000Z', '2020-02-01T00:00:00.000Z', '2020-02-20T00:00:00.000Z', '2020-03-01T00:00:00.000Z'];

interface Condition {
  account: string;
  lock_version?: number;
  min_available_balance?: string;
  max_available_balance?: string;
}

/** A new transaction: `amount` debited to `debit` and credited (`credited` when unbalanced) to `credit`. */
interface Create {
  kind: 'create';
  debit: string;
  credit: string;
  amount: number;
  credited?: number;
  /** The debit account's currency when absent. */
  currency?: string;
  pending?: boolean;
  /** A second pair of legs in its debit account's currency: several legs, maybe several currencies. */
  also?: { debit: string; credit: string; amount: number };
  valueDate?: string;
  refs?: string[];
  conditions?: Condition[];
}

/** A create as sent: its body, its key, and whether it went as a single write on every twin. */
interface Sent {
  body: Json;
  key: string;
  alone: boolean;
}

/** `pick` chooses among the transactions the history wrote, or for a replay among its accepted creates (negative counts from the last). */
type Op =
  | Create
  | Replay
  | { kind: 'commit' | 'reverse'; pick: number }
  | { kind: 'refund'; pick: number; percent: number; via: 'refund' | 'reverse' }
  | { kind: 'reserve'; source: string; counterparty: string; currency: string; amount: number }
  | { kind: 'release' | 'claw'; counterparty: string; currency: string; to: string; amount: number }
  | { kind: 'close_period'; period: number }
  | { kind: 'close_account'; account: string }
  | { kind: 'touch'; account: string };
type Replay = { kind: 'replay'; pick: number };
/** The steps with one form, sent alike to every twin. */
type Alike = Exclude<Op, Create | Replay>;

function bodyOf(c: Create): Json {
  const leg = (account: string, amount: number, direction: string, currency: string) => ({ account, amount: String(amount), currency, direction, pending: c.pending ?? false });
  const pair = (debit: string, credit: string, amount: number, credited: number, currency = CURRENCY.get(debit) ?? 'USD') => [
    leg(debit, amount, 'debit', currency),
    leg(credit, credited, 'credit', currency),
  ];
  return {
    postings: [...pair(c.debit, c.credit, c.amount, c.credited ?? c.amount, c.currency), ...(c.also ? pair(c.also.debit, c.also.credit, c.also.amount, c.also.amount) : [])],
    ...(c.valueDate && { value_date: c.valueDate }),
    ...(c.refs && { external_refs: c.refs.map((value) => ({ rail: 'ach', kind: 'trace', value })) }),
    ...(c.conditions && { conditions: c.conditions }),
  };
}

const codeOf = (res: request.Response): Verdict => res.body?.error?.code ?? `http ${res.status}`;

function verdictOf(res: request.Response): Verdict {
  if (res.headers['idempotent-replayed'] === 'true') return 'replayed';
  return res.status < 300 ? 'ok' : codeOf(res);
}

function dryRunVerdict(res: request.Response): Verdict {
  if (res.status !== 200) return codeOf(res);
  return res.body.data.valid ? 'ok' : res.body.data.error.code;
}

/** The verdict on a one-item bulk request: its item's. */
function bulkVerdict(res: request.Response): Verdict {
  if (res.status !== 201 && res.status !== 207) return codeOf(res);
  const [item] = res.body.data.results;
  return item.status === 'created' ? 'ok' : item.status === 'replayed' ? 'replayed' : item.error.code;
}

/** The one verdict all of `verdicts` give, named by `reference`; a disagreement fails the test, naming every answer and `about`. */
function agreed(about: Json, reference: string, verdicts: Record<string, Verdict>): Verdict {
  const verdict = verdicts[reference];
  if (Object.values(verdicts).some((v) => v !== verdict)) throw new Error(`The paths disagree: ${JSON.stringify(verdicts)} on ${JSON.stringify(about)}`);
  return verdict;
}

/** Each twin's verdict on a create, named by its path. */
function verdictsOf(answers: request.Response[], alone: boolean): Record<string, Verdict> {
  return Object.fromEntries(
    answers.map((res, i) => (i === 0 ? [PATHS[0], verdictOf(res)] : alone ? [`single on twin ${i + 1}`, verdictOf(res)] : [PATHS[i], bulkVerdict(res)])),
  );
}

/** The `pick`-th of `list`, cycling (negative counts from the end); undefined when empty. */
function pickFrom<T>(list: T[], pick: number): T | undefined {
  return list.at(pick % Math.max(list.length, 1));
}

/** The id of the transaction a write made, whatever its route. */
function writtenId(res: request.Response): string {
  const data = res.body.data;
  return data.results?.[0].transaction.id ?? data.transaction_id ?? data.id;
}

/** What a refund's percentage is of: the debits of the transaction's posted legs. */
function grossOf(res: request.Response): bigint {
  const postings: { direction: string; pending: boolean; amount: string }[] = res.body.data.postings ?? [];
  return postings.filter((p) => p.direction === 'debit' && !p.pending).reduce((sum, p) => sum + BigInt(p.amount), 0n);
}

/** Every account of a ledger by id: its status, lock_version and balance. */
async function booksOf(api: BooksApi): Promise<Record<string, Json>> {
  const res = await api.get('/accounts?limit=100').expect(200);
  const accounts: Json[] = res.body.data;
  const balances = await Promise.all(accounts.map((a) => api.balance(String(a.id))));
  return Object.fromEntries(accounts.map((a, i) => [a.id, { status: a.status, lock_version: a.lock_version, balance: balances[i] }]));
}

async function ledgerWithAccounts(t: LedgerTestApp): Promise<BooksApi> {
  const api = await BooksApi.start(t);
  await api.post('/account_templates', { name: RESERVE_TEMPLATE, accounting_type: 'liability' }).expect(201);
  for (const [id, type, currency, extra] of ACCOUNTS) await api.account(id, type, currency, extra);
  await api.post(`/accounts/${CLOSED}/close`, { closed_by_label: 'setup' }).expect(200);
  return api;
}

/**
 * One history applied to three twin ledgers, one per path of PATHS; a dry run of each new
 * transaction goes first on the single-write twin. Each step asserts that every path and twin
 * gave one verdict and that the twins' books are still equal, and answers that verdict.
 */
class Twins {
  /** Each accepted transaction's id on every twin, and its gross. */
  private readonly written: { ids: string[]; gross: bigint }[] = [];
  /** The accepted creates, as sent. */
  private readonly created: Sent[] = [];
  /** Reserve account ids by counterparty and currency (the same on every twin). */
  private readonly reserves = new Map<string, string>();
  /** The books after the last step (every twin's, being equal). */
  private books: Record<string, Json> = {};
  private steps = 0;

  private constructor(private readonly ledgers: BooksApi[]) {}

  static async start(t: LedgerTestApp): Promise<Twins> {
    const twins = new Twins(await Promise.all(PATHS.map(() => ledgerWithAccounts(t))));
    await twins.assertBooksEqual();
    return twins;
  }

  /** Applies `op`, checks the twins' books still agree, and answers the verdict every path gave. */
  async step(op: Op): Promise<Verdict> {
    this.steps++;
    if (op.kind === 'create') return this.create(op);
    if (op.kind === 'replay') return this.replay(op.pick);
    const verdict = await this.everywhere(op);
    await this.assertBooksEqual();
    return verdict;
  }

  private async create(op: Create): Promise<Verdict> {
    const body = bodyOf(op);
    const single = this.ledgers[0];
    // Both spellings of a dry run, in turn.
    const dryRun = this.steps % 2 === 0 ? single.post('/transactions', { ...body, dry_run: true }, null) : single.post('/transactions?dry_run=true', body, null);
    const dry = await dryRun;
    expect({ request: body, books: await booksOf(single) }).toEqual({ request: body, books: this.books });
    const sent = { body, key: randomUUID(), alone: body.external_refs !== undefined || body.conditions !== undefined };
    const answers = await this.write(sent);
    const verdict = agreed({ request: body }, 'single', { 'dry run': dryRunVerdict(dry), ...verdictsOf(answers, sent.alone) });
    await this.assertBooksEqual();
    if (verdict === 'ok') {
      this.created.push(sent);
      this.written.push({ ids: answers.map(writtenId), gross: grossOf(answers[0]) });
      // What the dry run said the touched accounts would become is what the write made of them.
      const predicted: Json[] = dry.body.data.summary.balances;
      expect({ request: body, balances: predicted }).toEqual({ request: body, balances: predicted.map((b) => this.books[String(b.account)]?.balance) });
    }
    return verdict;
  }

  /** An accepted create sent again with its key: a replay on every path, whatever the books say now, and nothing written. */
  private async replay(pick: number): Promise<Verdict> {
    const sent = pickFrom(this.created, pick);
    if (!sent) return 'nothing to pick';
    const verdict = agreed({ replay: sent.body }, 'single', verdictsOf(await this.write(sent), sent.alone));
    const before = this.books;
    await this.assertBooksEqual();
    expect(this.books).toEqual(before);
    return verdict;
  }

  /**
   * A create on each twin's path. A bulk item has no external_refs and no conditions (the bulk DTO
   * refuses them): a request with either is written alone on every twin, so for it only the dry
   * run and the single write are compared.
   */
  private write({ body, key, alone }: Sent): Promise<request.Response[]> {
    return Promise.all(
      this.ledgers.map((api, i) =>
        i === 0 || alone ? api.post('/transactions', body, key) : api.post('/transactions/bulk', { atomic: i === 2, transactions: [{ ...body, idempotency_key: key }] }, null),
      ),
    );
  }

  /** Corrections, commits, reserve operations and closes have one form: sent alike to every twin. */
  private async everywhere(op: Alike): Promise<Verdict> {
    const send = this.sender(op);
    if (!send) return 'nothing to pick';
    const answers = await Promise.all(this.ledgers.map(send));
    const verdict = agreed({ op }, 'twin 1', Object.fromEntries(answers.map((res, i) => [`twin ${i + 1}`, verdictOf(res)])));
    if (verdict !== 'ok') return verdict;
    if (op.kind === 'reserve') {
      const ids = new Set(answers.map((res) => res.body.data.reserve_account_id));
      expect(ids.size).toBe(1);
      this.reserves.set(`${op.counterparty} ${op.currency}`, [...ids][0]);
    }
    const transactional = ['reverse', 'refund', 'reserve', 'release', 'claw'].includes(op.kind);
    if (transactional) this.written.push({ ids: answers.map(writtenId), gross: 'amount' in op ? BigInt(op.amount) : grossOf(answers[0]) });
    return verdict;
  }

  /** The request `op` makes of twin `i`; null when it picks a transaction and none was written yet. */
  private sender(op: Alike): ((api: BooksApi, i: number) => request.Test) | null {
    switch (op.kind) {
      case 'commit':
      case 'reverse':
      case 'refund': {
        const target = pickFrom(this.written, op.pick);
        if (!target) return null;
        if (op.kind !== 'refund') return (api, i) => api.post(`/transactions/${target.ids[i]}/${op.kind}`);
        const amount = String((target.gross * BigInt(op.percent)) / 100n || 1n);
        return (api, i) => api.post(`/transactions/${target.ids[i]}/${op.via}`, { amount });
      }
      case 'reserve':
        return (api) =>
          api.post('/reserves', { source_account_id: op.source, template: RESERVE_TEMPLATE, counterparty_ref: op.counterparty, currency: op.currency, amount: String(op.amount) });
      case 'release':
      case 'claw': {
        const reserve = this.reserves.get(`${op.counterparty} ${op.currency}`) ?? 'reserve:none';
        const to = op.kind === 'release' ? { target_account_id: op.to } : { operator_account_id: op.to, reason_code: 'chargeback' };
        return (api) => api.post(`/reserves/${reserve}/${op.kind}`, { amount: String(op.amount), ...to });
      }
      case 'close_period': {
        const [start, end] = PERIODS[op.period];
        return (api) => api.post('/period_closes', { period_start: start, period_end: end, closed_by_label: 'agreement' });
      }
      case 'close_account':
        return (api) => api.post(`/accounts/${op.account}/close`, { closed_by_label: 'agreement' });
      case 'touch':
        // Any change to an account moves its lock_version, which conditions can name.
        return (api) => api.patch(`/accounts/${op.account}`, { metadata: { step: String(this.steps) } });
    }
  }

  private async assertBooksEqual(): Promise<void> {
    const [first, ...rest] = await Promise.all(this.ledgers.map(booksOf));
    const named = (books: Record<string, Json>[]) => Object.fromEntries(books.map((b, i) => [PATHS[i + 1], b]));
    expect(named(rest)).toEqual(named(rest.map(() => first)));
    this.books = first;
  }
}

const move = (debit: string, credit: string, amount: number, extra: Partial<Create> = {}): Create => ({ kind: 'create', debit, credit, amount, ...extra });
/** Raises a liability wallet (credited) against cash. */
const fund = (wallet: string, amount: number, extra: Partial<Create> = {}) => move('cash', wallet, amount, extra);
/** Lowers a liability wallet (debited) into sales. */
const spend = (wallet: string, amount: number, extra: Partial<Create> = {}) => move(wallet, 'sales', amount, extra);
const when = (...conditions: Condition[]): Partial<Create> => ({ conditions });
const closeJanuary: Op = { kind: 'close_period', period: 0 };
const refund = (pick: number, percent: number, via: 'refund' | 'reverse' = 'refund'): Op => ({ kind: 'refund', pick, percent, via });
const reserve = (source: string, amount: number, currency = 'USD'): Op => ({ kind: 'reserve', source, counterparty: 'm1', currency, amount });
/** Takes `amount` out of the reserve of `reserve` (m1's, in USD) into `to`. */
const takeOut = (kind: 'release' | 'claw', to: string, amount: number): Op => ({ kind, counterparty: 'm1', currency: 'USD', to, amount });

/** [name, history, last step, the verdict every path must give it]. */
const CASES: [string, Op[], Op, Verdict][] = [
  ['a none account spending all it holds', [fund('wallet:a', 100)], spend('wallet:a', 100), 'ok'],
  ['a none account spending one more than it holds', [fund('wallet:a', 100)], spend('wallet:a', 101), 'insufficient_funds'],
  ['a none account with overdraft_limit 300 going to -300', [], spend('wallet:b', 300), 'ok'],
  ['a none account with overdraft_limit 300 going to -301', [], spend('wallet:b', 301), 'insufficient_funds'],
  ['an allowed account, whose overdraft_limit does not bind', [], spend('wallet:c', 5000), 'ok'],
  ['a debit-normal none account (expense) credited below zero', [], move('cash', 'spend', 1), 'insufficient_funds'],
  ['a pending hold counting against the available balance', [fund('wallet:a', 100), spend('wallet:a', 80, { pending: true })], spend('wallet:a', 21), 'insufficient_funds'],
  ['a pending inflow, which is not available', [fund('wallet:a', 100, { pending: true })], spend('wallet:a', 1), 'insufficient_funds'],
  ['a pending inflow once committed', [fund('wallet:a', 100, { pending: true }), { kind: 'commit', pick: 0 }], spend('wallet:a', 100), 'ok'],
  ['a hold released by reversing it', [fund('wallet:a', 100), spend('wallet:a', 80, { pending: true }), { kind: 'reverse', pick: 1 }], spend('wallet:a', 100), 'ok'],
  ['committing a reversed hold', [fund('wallet:a', 100), spend('wallet:a', 80, { pending: true }), { kind: 'reverse', pick: 1 }], { kind: 'commit', pick: 1 }, 'invalid_state'],
  ['a posting to an account closed at setup', [], move('cash', CLOSED, 1), 'account_closed'],
  ['a posting to an account closed during the history', [{ kind: 'close_account', account: 'spare' }], move('cash', 'spare', 1), 'account_closed'],
  ['a posting to an unknown account', [], move('cash', UNKNOWN, 1), 'unknown_account'],
  ['a posting in another currency than its account', [], move('cash', 'sales', 1, { currency: 'EUR' }), 'currency_mismatch'],
  ['a lower-case currency code', [], move('cash', 'sales', 1, { currency: 'usd' }), 'ok'],
  ['a transaction in two currencies', [], move('cash', 'sales', 5, { also: { debit: 'eur:cash', credit: 'eur:capital', amount: 7 } }), 'ok'],
  ['an overdraft on the legs of the second currency', [], move('cash', 'sales', 5, { also: { debit: 'eur:capital', credit: 'eur:cash', amount: 1 } }), 'insufficient_funds'],
  ['a posted transfer from a none account to itself', [], move('wallet:a', 'wallet:a', 1), 'ok'],
  ['a pending transfer from a none account to itself (the hold counts, the inflow does not)', [], move('wallet:a', 'wallet:a', 1, { pending: true }), 'insufficient_funds'],
  ['debits not equal to credits', [], move('cash', 'sales', 1, { credited: 2 }), 'unbalanced'],
  ['value_date at the start of a closed period', [closeJanuary], move('cash', 'sales', 1, { valueDate: VALUE_DATES[0] }), 'period_closed'],
  ['value_date inside a closed period', [closeJanuary], move('cash', 'sales', 1, { valueDate: VALUE_DATES[1] }), 'period_closed'],
  ['value_date at the end of a closed period (exclusive)', [closeJanuary], move('cash', 'sales', 1, { valueDate: VALUE_DATES[2] }), 'ok'],
  ['value_date in a period never closed', [], move('cash', 'sales', 1, { valueDate: VALUE_DATES[1] }), 'ok'],
  ['an external ref another transaction holds', [move('cash', 'sales', 1, { refs: ['r1'] })], move('cash', 'sales', 2, { refs: ['r1'] }), 'duplicate_external_ref'],
  ['the same external ref twice in one transaction', [], move('cash', 'sales', 1, { refs: ['r1', 'r1'] }), 'duplicate_external_ref'],
  ['an external ref of a refused transaction', [move('cash', UNKNOWN, 1, { refs: ['r1'] })], move('cash', 'sales', 1, { refs: ['r1'] }), 'ok'],
  ['a lock_version condition after the account changed', [{ kind: 'touch', account: 'cash' }], move('cash', 'sales', 1, when({ account: 'cash', lock_version: 1 })), 'precondition_failed'],
  ['a lock_version condition that holds', [{ kind: 'touch', account: 'cash' }], move('cash', 'sales', 1, when({ account: 'cash', lock_version: 2 })), 'ok'],
  ['min_available_balance above the balance', [fund('wallet:a', 100)], move('cash', 'sales', 1, when({ account: 'wallet:a', min_available_balance: '101' })), 'precondition_failed'],
  ['min_available_balance equal to the balance', [fund('wallet:a', 100)], move('cash', 'sales', 1, when({ account: 'wallet:a', min_available_balance: '100' })), 'ok'],
  ['max_available_balance below the balance', [fund('wallet:a', 100)], move('cash', 'sales', 1, when({ account: 'wallet:a', max_available_balance: '99' })), 'precondition_failed'],
  ['a condition on an unknown account', [], move('cash', 'sales', 1, when({ account: UNKNOWN, min_available_balance: '0' })), 'precondition_failed'],
  // Several refusals at once: the one that wins is part of the verdict.
  ['an unknown account dated inside a closed period', [closeJanuary], move('cash', UNKNOWN, 1, { valueDate: VALUE_DATES[1] }), 'unknown_account'],
  ['an overdraft dated inside a closed period', [closeJanuary], spend('wallet:a', 1, { valueDate: VALUE_DATES[1] }), 'insufficient_funds'],
  ['an overdraft with a failing condition', [], spend('wallet:a', 1, when({ account: 'wallet:a', min_available_balance: '1' })), 'precondition_failed'],
  [
    'a reused external ref dated inside a closed period',
    [move('cash', 'sales', 1, { refs: ['r1'] }), closeJanuary],
    move('cash', 'sales', 1, { refs: ['r1'], valueDate: VALUE_DATES[1] }),
    'period_closed',
  ],
  // A replay answers with the transaction its key made, whatever the books say now (reference, Idempotency).
  ['replaying an accepted transaction', [fund('wallet:a', 100)], { kind: 'replay', pick: 0 }, 'replayed'],
  ['replaying a spend the wallet could no longer afford', [fund('wallet:a', 100), spend('wallet:a', 100)], { kind: 'replay', pick: 1 }, 'replayed'],
  ['replaying a transaction with an external ref', [move('cash', 'sales', 1, { refs: ['r1'] })], { kind: 'replay', pick: 0 }, 'replayed'],
  ['replaying a transaction dated in a period closed since', [move('cash', 'sales', 1, { valueDate: VALUE_DATES[1] }), closeJanuary], { kind: 'replay', pick: 0 }, 'replayed'],
  ['replaying a transfer out of an account closed since', [fund('spare', 5), spend('spare', 5), { kind: 'close_account', account: 'spare' }], { kind: 'replay', pick: 1 }, 'replayed'],
  ['replaying a transaction whose condition no longer holds', [fund('wallet:a', 100, when({ account: 'wallet:a', max_available_balance: '0' }))], { kind: 'replay', pick: 0 }, 'replayed'],
  ['reversing a reversed transaction', [move('cash', 'sales', 10), { kind: 'reverse', pick: 0 }], { kind: 'reverse', pick: 0 }, 'already_reversed'],
  ['a reversal that would overdraw a none account', [fund('wallet:a', 100), spend('wallet:a', 100)], { kind: 'reverse', pick: 0 }, 'insufficient_funds'],
  ['refunding more than remains', [move('cash', 'sales', 100), refund(0, 60)], refund(0, 50), 'partial_refund_exceeds_original'],
  ['reversing with an amount beyond the original', [move('cash', 'sales', 100)], refund(0, 101, 'reverse'), 'partial_refund_exceeds_original'],
  ['a reserve beyond the source account', [fund('wallet:a', 100)], reserve('wallet:a', 101), 'reserve_insufficient_funds'],
  ['a reserve from an overdraft-allowed account beyond its balance', [], reserve('wallet:c', 1), 'reserve_insufficient_funds'],
  ['a reserve in another currency than its source', [fund('wallet:a', 100)], reserve('wallet:a', 1, 'EUR'), 'reserve_currency_mismatch'],
  ['a release beyond the reserve', [fund('wallet:a', 100), reserve('wallet:a', 60)], takeOut('release', 'wallet:a', 61), 'reserve_release_exceeds_balance'],
  ['a reserve from a closed account', [], reserve(CLOSED, 1), 'account_closed'],
  ['a claw of the whole reserve', [fund('wallet:a', 100), reserve('wallet:a', 60)], takeOut('claw', 'wallet:c', 60), 'ok'],
];

/** `arb` about once in `n` draws, absent otherwise. */
const sometimes = <T>(arb: fc.Arbitrary<T>, n: number) => fc.oneof({ weight: n - 1, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: arb });

const OPEN = ACCOUNTS.map(([id]) => id).filter((id) => id !== CLOSED);
const inCurrency = (currency: string) => fc.constantFrom(...OPEN.filter((id) => CURRENCY.get(id) === currency));
const account = fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...OPEN) }, { weight: 1, arbitrary: fc.constantFrom(CLOSED, UNKNOWN) });
/** What reserves move funds between: credit-normal accounts, mostly the wallets that get funded, and a closed and an unknown one. */
const creditSide = fc.oneof({ weight: 3, arbitrary: fc.constantFrom('wallet:a', 'wallet:b', 'wallet:c') }, fc.constantFrom('spare', 'eur:capital', CLOSED, UNKNOWN));
/** [debit, credit]: mostly within one currency, often funding a wallet, sometimes anything at all. */
const pair = fc.oneof(
  { weight: 4, arbitrary: fc.tuple(inCurrency('USD'), inCurrency('USD')) },
  { weight: 3, arbitrary: fc.tuple(fc.constant('cash'), fc.constantFrom('wallet:a', 'wallet:b', 'wallet:c', 'spare')) },
  { weight: 1, arbitrary: fc.tuple(inCurrency('EUR'), inCurrency('EUR')) },
  { weight: 1, arbitrary: fc.tuple(account, account) },
);
const amount = fc.integer({ min: 1, max: 600 });
const signed = fc.integer({ min: -400, max: 800 }).map(String);
const condition: fc.Arbitrary<Condition> = fc.oneof(
  fc.record({ account, lock_version: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ account, min_available_balance: signed }),
  fc.record({ account, max_available_balance: signed }),
);
const create: fc.Arbitrary<Op> = fc
  .record({
    legs: pair,
    amount,
    credited: sometimes(amount, 10),
    currency: sometimes(fc.constantFrom('USD', 'EUR', 'usd'), 8),
    pending: sometimes(fc.constant(true), 4),
    also: sometimes(fc.tuple(pair, amount).map(([[debit, credit], n]) => ({ debit, credit, amount: n })), 6),
    valueDate: sometimes(fc.constantFrom(...VALUE_DATES), 3),
    refs: sometimes(fc.array(fc.constantFrom('r1', 'r2'), { minLength: 1, maxLength: 2 }), 5),
    conditions: sometimes(fc.array(condition, { minLength: 1, maxLength: 2 }), 5),
  })
  .map(({ legs: [debit, credit], ...rest }) => ({ kind: 'create' as const, debit, credit, ...rest }));
const pick = fc.integer({ min: -3, max: 20 });
const counterparty = fc.constantFrom('m1', 'm2');
const reserveCurrency = fc.constantFrom('USD', 'USD', 'USD', 'EUR');
const smaller = fc.integer({ min: 1, max: 150 });
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 12, arbitrary: create },
  { weight: 3, arbitrary: fc.record({ kind: fc.constantFrom('replay' as const, 'commit' as const, 'reverse' as const), pick }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('refund' as const), pick, percent: fc.integer({ min: 1, max: 150 }), via: fc.constantFrom('refund' as const, 'reverse' as const) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('reserve' as const), source: creditSide, counterparty, currency: reserveCurrency, amount: smaller }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constantFrom('release' as const, 'claw' as const), counterparty, currency: reserveCurrency, to: creditSide, amount: smaller }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('close_period' as const), period: fc.constantFrom(0, 1) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('close_account' as const), account: fc.constantFrom('spare', 'spend', 'wallet:c') }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('touch' as const), account }) },
);

describe('Agreement of the paths that judge a transaction (dry run, single write, bulk, atomic bulk)', () => {
  let t: LedgerTestApp;

  beforeAll(async () => {
    t = await startBooksApp('agreement');
  });
  afterAll(() => t.close());

  it.each(CASES)('%s', async (_name, history, last, expected) => {
    const twins = await Twins.start(t);
    for (const o of history) await twins.step(o);
    expect(await twins.step(last)).toBe(expected);
  });

  it('gives one verdict on every path and keeps the twins equal over generated histories (fast-check)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 6, maxLength: 12 }), async (history) => {
        const twins = await Twins.start(t);
        for (const o of history) await twins.step(o);
      }),
      { numRuns: 20 },
    );
  }, 180_000);
});
