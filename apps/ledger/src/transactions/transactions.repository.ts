import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { preparedQuery, TraceCarrier } from '@bursar/service-kit';
import { DataSource, EntityManager, SelectQueryBuilder } from 'typeorm';
import { AccountType } from '../accounts/account-kinds';
import { BalanceTotals, BalanceTotalsRow, totalsOf } from '../balances/balance';
import { LedgerScope } from '../common/mode';
import { POSTING_COLUMNS } from '../postings/posting.columns';
import { PostingEntity } from '../postings/posting.entity';
import { TransactionEntity } from './transaction.entity';

/** An account as the write path holds it: locked, with its running totals. */
export interface LockedAccount {
  id: string;
  type: AccountType;
  currency: string;
  status: 'open' | 'closed';
  overdraftPolicy: 'allowed' | 'none';
  overdraftLimit: bigint;
  lockVersion: number;
  totals: BalanceTotals;
}

export interface ExternalRefRecord {
  id: string;
  transactionId: string;
  rail: string;
  refKind: string;
  value: string;
  metadata: Record<string, unknown>;
  createdAt: Date;
}

/**
 * Locked accounts, and what the writes under that lock are built with before they are sent: posting
 * ids drawn from the PostingIdPool (taken in order) and the write time.
 */
export interface Book {
  accounts: Map<string, LockedAccount>;
  postingIds: string[];
  now: Date;
}

/** The rows of transactions to write, built from their plans (BooksWriter.build). */
export interface WriteRows {
  transactions: TransactionEntity[];
  postings: PostingEntity[];
  refs: ExternalRefRecord[];
  /** Pending postings of other transactions the writes void. */
  voids: string[];
  deltas: BalanceDelta[];
  /** The write time (Book.now). */
  now: Date;
}

/** What a write stored: transactions and refs by id (a taken key or ref is missing). */
export interface Stored {
  transactions: Set<string>;
  refs: Set<string>;
}

/** Change of one account's running totals. */
export interface BalanceDelta {
  account: string;
  totals: BalanceTotals;
}

export const TRANSACTION_COLUMNS = `t.id, t.ledger_id AS "ledgerId", t.idempotency_key AS "idempotencyKey", t.kind, t.reverses,
  t.refund_amount::text AS "refundAmount", t.refund_currency AS "refundCurrency", t.metadata, t.value_date AS "valueDate",
  t.booking_date AS "bookingDate", t.created_at AS "createdAt", t.updated_at AS "updatedAt"`;

const REF_COLUMNS = `r.id, r.transaction_id AS "transactionId", r.rail, r.ref_kind AS "refKind", r.value, r.metadata,
  r.created_at AS "createdAt"`;

/** Adds the `d` rows (account, pd, pc, qd, qc) to the balance rows; see deltaParams. */
const MOVE_BALANCES = `UPDATE account_balances SET
  posted_debits = posted_debits + d.pd, posted_credits = posted_credits + d.pc,
  pending_debits = pending_debits + d.qd, pending_credits = pending_credits + d.qc`;

/** The five parallel arrays MOVE_BALANCES unnests. */
function deltaParams(deltas: BalanceDelta[]) {
  return [
    deltas.map((d) => d.account),
    deltas.map((d) => d.totals.postedDebits.toString()),
    deltas.map((d) => d.totals.postedCredits.toString()),
    deltas.map((d) => d.totals.pendingDebits.toString()),
    deltas.map((d) => d.totals.pendingCredits.toString()),
  ];
}

/** Key of the ledger-wide lock (writes hold it shared, period closes exclusively) for the ledger id expression `ledger`. */
const ledgerLock = (ledger = '$1') => `hashtextextended('books:' || ${ledger}::uuid::text, 0)`;

/** Distinct ids in the order every writer locks them. */
const lockOrder = (ids: string[]) => [...new Set(ids)].sort();

const ACCOUNT_STATE = `a.id, a.type, a.currency, a.status, a.overdraft_policy AS "overdraftPolicy",
  a.overdraft_limit::text AS "overdraftLimit", a.lock_version AS "lockVersion",
  b.posted_debits::text AS "postedDebits", b.posted_credits::text AS "postedCredits",
  b.pending_debits::text AS "pendingDebits", b.pending_credits::text AS "pendingCredits"`;
const ACCOUNT_STATE_FROM = `accounts a JOIN account_balances b ON b.ledger_id = a.ledger_id AND b.account_id = a.id`;

export type LockedRow = Omit<LockedAccount, 'overdraftLimit' | 'totals'> & BalanceTotalsRow & { overdraftLimit: string };

/**
 * Locks accounts `$2` of ledger `$1`, ledger lock first, each row carrying the write time
 * (clock_timestamp() once the locks are held).
 */
const LOCK_ACCOUNTS = `WITH guard AS MATERIALIZED (SELECT pg_advisory_xact_lock_shared(${ledgerLock()}))
  SELECT ${ACCOUNT_STATE}, clock_timestamp() AS "lockedAt"
  FROM guard, ${ACCOUNT_STATE_FROM}
  WHERE a.ledger_id = $1 AND a.id = ANY($2::text[])
  ORDER BY a.id
  FOR NO KEY UPDATE OF a, b`;

export function lockedAccountOf(r: LockedRow): LockedAccount {
  return {
    id: r.id,
    type: r.type,
    currency: r.currency,
    status: r.status,
    overdraftPolicy: r.overdraftPolicy,
    overdraftLimit: BigInt(r.overdraftLimit),
    lockVersion: r.lockVersion,
    totals: totalsOf(r),
  };
}

function lockedMap(rows: LockedRow[]): Map<string, LockedAccount> {
  return new Map(rows.map((r) => [r.id, lockedAccountOf(r)]));
}

function bookOf(rows: (LockedRow & { lockedAt: Date })[], postingIds: string[]): Book {
  const accounts = lockedMap(rows.map(({ lockedAt: _at, ...row }) => row));
  // No row: every account is unknown, so nothing will be written.
  return { accounts, postingIds, now: rows[0]?.lockedAt ?? new Date() };
}

/** One transaction of a ledger_write_batch call (see sql/ledger-write-batch.sql), ready to write. */
export interface BatchItem {
  id: string;
  key: string | null;
  kind: string;
  reverses: string | null;
  refund_amount: string | null;
  refund_currency: string | null;
  metadata: Record<string, unknown>;
  value_date: Date;
  /** Its booking and creation time. */
  created_at: Date;
  postings: { id: string; account: string; amount: string; currency: string; direction: string; pending: boolean; tags: Record<string, string> }[];
  refs: { id: string; rail: string; kind: string; value: string; metadata: Record<string, unknown> }[];
  conditions: { account: string; lock_version?: number; min_available?: string; max_available?: string }[];
  events: { type: string; resource_id: string | null; data: object }[];
  /** The submitting request's trace context, stored with its events (null when tracing is off). */
  trace_context: TraceCarrier | null;
  /** The idempotency key to store completed with the write; without `body` it is only checked (the caller stores it). */
  idem: { organization: string; mode: string; client: string; route: string; key: string; fingerprint: string; status: number; body: string | null } | null;
  /** Whether the result carries the touched accounts as they stand after the write. */
  touched: boolean;
}

/** A ledger_write_batch call but its items: one ledger, the idempotency take-over window, the accounts to lock. */
export interface WriteBatchHead {
  ledger: string;
  organization: string;
  mode: string;
  stale_before: Date;
  expired_before: Date | null;
  /** Every account the items name. */
  accounts: string[];
}

/** A call's parameter from its head and its items, each already JSON (so an item is serialized once, when it is built). */
export function writeBatchJson(head: WriteBatchHead, items: string[]): string {
  return `${JSON.stringify(head).slice(0, -1)},"items":[${items.join(',')}]}`;
}

/** What ledger_write_batch answers for one item: written (with the touched accounts when asked), or why not. */
export type BatchItemResult =
  | { ok: true; touched: LockedRow[] }
  | { ok?: undefined; error: 'unknown_account'; postings: number[] }
  | { ok?: undefined; error: 'currency_mismatch'; posting: number; account_currency: string }
  | { ok?: undefined; error: 'account_closed'; posting: number }
  | { ok?: undefined; error: 'precondition_failed'; condition: number; failed: string; actual: string | number | null }
  | { ok?: undefined; error: 'insufficient_funds'; account: string; currency: string; available: string; available_after: string; overdraft_limit: string }
  | { ok?: undefined; error: 'period_closed' | 'key_taken' }
  | { ok?: undefined; error: 'duplicate_external_ref'; ref: number };

/** The SQLSTATE ledger_write_batch raises when a key or ref was taken by a write still in flight as it read: retry the items alone. */
export const WRITE_RACED = 'BK002';

const WRITE_BATCH = `SELECT ledger_write_batch($1::jsonb) AS results`;
const RESERVE_POSTING_IDS = `SELECT ARRAY(SELECT nextval(pg_get_serial_sequence('postings', 'id'))::text FROM generate_series(1, $1::int)) AS ids`;

/** An event to append with a write (the events table's row, minus what the scope gives). */
export interface NewEvent {
  type: string;
  resourceId: string | null;
  data: object;
}

export interface WrittenTransaction {
  transaction: TransactionEntity;
  postings: PostingEntity[];
  refs: ExternalRefRecord[];
}

@Injectable()
export class TransactionsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Locks the accounts and their balance rows in id order (so two writers can never wait on each
   * other in a cycle) after taking the ledger's write lock shared; the book carries `postingIds`
   * for the writes under that lock (see Book). Absent ids are simply missing.
   */
  async lockAccounts(manager: EntityManager, scope: LedgerScope, ids: string[], postingIds: string[] = []): Promise<Book> {
    return bookOf(await preparedQuery<LockedRow & { lockedAt: Date }>(manager, LOCK_ACCOUNTS, [scope.ledgerId, lockOrder(ids)]), postingIds);
  }

  /**
   * Checks and writes a batch (its JSON, from writeBatchJson) in one statement,
   * ledger_write_batch: in autocommit (`executor` the DataSource) BEGIN and COMMIT travel with it.
   * One result per item, in order.
   */
  async writeBatch(executor: DataSource | EntityManager, batch: string): Promise<BatchItemResult[]> {
    const [row] = await preparedQuery<{ results: BatchItemResult[] }>(executor, WRITE_BATCH, [batch]);
    return row.results;
  }

  /** `count` fresh posting ids, in order. */
  async reservePostingIds(count: number): Promise<string[]> {
    const [row] = await preparedQuery<{ ids: string[] }>(this.dataSource, RESERVE_POSTING_IDS, [count]);
    return row.ids;
  }

  /** The same account states, read without locking (for expanded reads). */
  async readAccounts(scope: LedgerScope, ids: string[]): Promise<Map<string, LockedAccount>> {
    const rows: LockedRow[] = await this.dataSource.query(
      `SELECT ${ACCOUNT_STATE} FROM ${ACCOUNT_STATE_FROM} WHERE a.ledger_id = $1 AND a.id = ANY($2::text[]) ORDER BY a.id`,
      [scope.ledgerId, [...new Set(ids)]],
    );
    return lockedMap(rows);
  }

  /** Takes the ledger's write lock exclusively: waits for in-flight writes, holds new ones off. */
  async lockLedgerExclusive(manager: EntityManager, scope: LedgerScope): Promise<void> {
    await manager.query(`SELECT pg_advisory_xact_lock(${ledgerLock()})`, [scope.ledgerId]);
  }

  /**
   * Writes built transactions with their external refs and postings, voids released pending legs
   * and moves the balance rows by the deltas, in one statement. A transaction whose idempotency key
   * already names another is skipped, with its postings and refs, and then nothing moves; a ref
   * already taken is skipped. The caller checks `Stored` and rolls back on any gap.
   */
  async write(manager: EntityManager, scope: LedgerScope, rows: WriteRows): Promise<Stored> {
    const { transactions: txs, postings, refs } = rows;
    const [row] = await preparedQuery<{ transactions: string[]; refs: string[] }>(
      manager,
      `WITH t AS (
         INSERT INTO transactions (id, ledger_id, idempotency_key, kind, reverses, refund_amount, refund_currency, metadata, value_date,
           booking_date, created_at, updated_at)
         SELECT x.id, $1, x.key, x.kind, x.reverses, x.refund_amount, x.refund_currency, x.metadata, x.value_date, $2, $2, $2
         FROM unnest($3::uuid[], $4::text[], $5::text[], $6::uuid[], $7::numeric[], $8::text[], $9::jsonb[], $10::timestamptz[])
           WITH ORDINALITY AS x(id, key, kind, reverses, refund_amount, refund_currency, metadata, value_date, n)
         ORDER BY x.n
         ON CONFLICT (ledger_id, idempotency_key) DO NOTHING
         RETURNING id, value_date
       ), r AS (
         INSERT INTO transaction_external_refs (id, ledger_id, transaction_id, rail, ref_kind, value, metadata, created_at)
         SELECT y.id, $1, y.tx, y.rail, y.kind, y.value, y.metadata, $2
         FROM unnest($11::uuid[], $12::uuid[], $13::text[], $14::text[], $15::text[], $16::jsonb[]) AS y(id, tx, rail, kind, value, metadata)
         WHERE y.tx IN (SELECT id FROM t)
         ON CONFLICT (ledger_id, rail, ref_kind, value) DO NOTHING
         RETURNING id
       ), p AS (
         INSERT INTO postings (id, ledger_id, transaction_id, account_id, amount, currency, direction, pending, tags, value_date, created_at)
         OVERRIDING SYSTEM VALUE
         SELECT z.id, $1, t.id, z.account, z.amount, z.currency, z.direction, z.pending, z.tags, t.value_date, $2
         FROM unnest($17::bigint[], $18::uuid[], $19::text[], $20::numeric[], $21::text[], $22::text[], $23::boolean[], $24::jsonb[])
           WITH ORDINALITY AS z(id, tx, account, amount, currency, direction, pending, tags, n)
         JOIN t ON t.id = z.tx
         ORDER BY z.n
         RETURNING 1
       ), v AS (
         -- The cardinality test is checked once, before any scan: a write voiding nothing (most) reads no postings,
         -- whatever plan the statement was given when the table was small.
         UPDATE postings SET voided_at = clock_timestamp()
         WHERE cardinality($25::bigint[]) > 0 AND postings.id = ANY($25::bigint[]) AND postings.pending AND postings.voided_at IS NULL
           AND EXISTS (SELECT 1 FROM t)
         RETURNING 1
       ), b AS (
         ${MOVE_BALANCES}
         FROM unnest($26::text[], $27::numeric[], $28::numeric[], $29::numeric[], $30::numeric[]) AS d(account, pd, pc, qd, qc)
         WHERE account_balances.ledger_id = $1 AND account_balances.account_id = d.account AND EXISTS (SELECT 1 FROM t)
         RETURNING 1
       )
       SELECT
         (SELECT coalesce(json_agg(t.id), '[]') FROM t) AS transactions,
         (SELECT coalesce(json_agg(r.id), '[]') FROM r) AS refs`,
      [
        scope.ledgerId,
        rows.now,
        txs.map((x) => x.id),
        txs.map((x) => x.idempotencyKey),
        txs.map((x) => x.kind),
        txs.map((x) => x.reverses),
        txs.map((x) => x.refundAmount),
        txs.map((x) => x.refundCurrency),
        txs.map((x) => JSON.stringify(x.metadata)),
        txs.map((x) => x.valueDate),
        refs.map((x) => x.id),
        refs.map((x) => x.transactionId),
        refs.map((x) => x.rail),
        refs.map((x) => x.refKind),
        refs.map((x) => x.value),
        refs.map((x) => JSON.stringify(x.metadata)),
        postings.map((x) => x.id),
        postings.map((x) => x.transactionId),
        postings.map((x) => x.accountId),
        postings.map((x) => x.amount),
        postings.map((x) => x.currency),
        postings.map((x) => x.direction),
        postings.map((x) => x.pending),
        postings.map((x) => JSON.stringify(x.tags)),
        rows.voids,
        ...deltaParams(rows.deltas),
      ],
    );
    return { transactions: new Set(row.transactions), refs: new Set(row.refs) };
  }

  /** Turns open pending legs of a transaction into posted ones and moves the balance rows. */
  async commitPending(manager: EntityManager, scope: LedgerScope, transactionId: string, deltas: BalanceDelta[]): Promise<void> {
    await manager.query(
      `WITH c AS (
         UPDATE postings SET pending = false, committed_at = clock_timestamp()
         WHERE ledger_id = $1 AND transaction_id = $2 AND pending AND voided_at IS NULL
       ), b AS (
         ${MOVE_BALANCES}
         FROM unnest($3::text[], $4::numeric[], $5::numeric[], $6::numeric[], $7::numeric[]) AS d(account, pd, pc, qd, qc)
         WHERE account_balances.ledger_id = $1 AND account_balances.account_id = d.account
       )
       UPDATE transactions SET updated_at = clock_timestamp() WHERE id = $2`,
      [scope.ledgerId, transactionId, ...deltaParams(deltas)],
    );
  }

  /** The transaction, locked until the caller's transaction ends (corrections serialize on it). */
  async lockTransaction(manager: EntityManager, scope: LedgerScope, id: string): Promise<TransactionEntity | null> {
    const rows: TransactionEntity[] = await manager.query(
      `SELECT ${TRANSACTION_COLUMNS} FROM transactions t WHERE t.ledger_id = $1 AND t.id = $2 FOR UPDATE`,
      [scope.ledgerId, id],
    );
    return rows[0] ?? null;
  }

  async findById(scope: LedgerScope, id: string, manager?: EntityManager): Promise<TransactionEntity | null> {
    const rows: TransactionEntity[] = await (manager ?? this.dataSource).query(
      `SELECT ${TRANSACTION_COLUMNS} FROM transactions t WHERE t.ledger_id = $1 AND t.id = $2`,
      [scope.ledgerId, id],
    );
    return rows[0] ?? null;
  }

  async findByKey(scope: LedgerScope, key: string): Promise<TransactionEntity | null> {
    const rows: TransactionEntity[] = await this.dataSource.query(
      `SELECT ${TRANSACTION_COLUMNS} FROM transactions t WHERE t.ledger_id = $1 AND t.idempotency_key = $2`,
      [scope.ledgerId, key],
    );
    return rows[0] ?? null;
  }

  async findByExternalRef(scope: LedgerScope, ref: { rail: string; kind: string; value: string }): Promise<TransactionEntity | null> {
    const rows: TransactionEntity[] = await this.dataSource.query(
      `SELECT ${TRANSACTION_COLUMNS} FROM transaction_external_refs r JOIN transactions t ON t.id = r.transaction_id
       WHERE r.ledger_id = $1 AND r.rail = $2 AND r.ref_kind = $3 AND r.value = $4`,
      [scope.ledgerId, ref.rail, ref.kind, ref.value],
    );
    return rows[0] ?? null;
  }

  /** Postings of the given transactions, in id order. */
  async postingsOf(scope: LedgerScope, ids: string[], manager?: EntityManager): Promise<PostingEntity[]> {
    if (ids.length === 0) return [];
    return (manager ?? this.dataSource).query(
      `SELECT ${POSTING_COLUMNS} FROM postings p WHERE p.ledger_id = $1 AND p.transaction_id = ANY($2::uuid[]) ORDER BY p.id`,
      [scope.ledgerId, ids],
    );
  }

  async refsOf(scope: LedgerScope, ids: string[], manager?: EntityManager): Promise<ExternalRefRecord[]> {
    if (ids.length === 0) return [];
    return (manager ?? this.dataSource).query(
      `SELECT ${REF_COLUMNS} FROM transaction_external_refs r WHERE r.ledger_id = $1 AND r.transaction_id = ANY($2::uuid[])
       ORDER BY r.created_at, r.id`,
      [scope.ledgerId, ids],
    );
  }

  /** The reversal (kind reversal) of each of `ids` that has one. */
  async reversalsOf(scope: LedgerScope, ids: string[], manager?: EntityManager): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    const rows: { id: string; reverses: string }[] = await (manager ?? this.dataSource).query(
      `SELECT id, reverses FROM transactions WHERE ledger_id = $1 AND kind = 'reversal' AND reverses = ANY($2::uuid[])`,
      [scope.ledgerId, ids],
    );
    return new Map(rows.map((r) => [r.reverses, r.id]));
  }

  /** Refunds of a transaction, oldest first. */
  async refundsOf(scope: LedgerScope, id: string, manager?: EntityManager): Promise<TransactionEntity[]> {
    return (manager ?? this.dataSource).query(
      `SELECT ${TRANSACTION_COLUMNS} FROM transactions t WHERE t.ledger_id = $1 AND t.kind = 'refund' AND t.reverses = $2
       ORDER BY t.created_at, t.id`,
      [scope.ledgerId, id],
    );
  }

  /** Whether `at` falls inside a closed (not reopened) period. */
  async inClosedPeriod(manager: EntityManager, scope: LedgerScope, at: Date): Promise<boolean> {
    const rows: unknown[] = await manager.query(
      `SELECT 1 FROM period_closes WHERE ledger_id = $1 AND reopened_at IS NULL AND $2 >= period_start AND $2 < period_end LIMIT 1`,
      [scope.ledgerId, at],
    );
    return rows.length > 0;
  }

  async updateMetadata(scope: LedgerScope, id: string, metadata: Record<string, unknown>, manager: EntityManager): Promise<void> {
    await manager.query(`UPDATE transactions SET metadata = $3, updated_at = clock_timestamp() WHERE ledger_id = $1 AND id = $2`, [
      scope.ledgerId,
      id,
      JSON.stringify(metadata),
    ]);
  }

  /** Query for the transactions list (alias `t`); filters are added by the service's filter builder. */
  listQuery(scope: LedgerScope): SelectQueryBuilder<TransactionEntity> {
    return this.dataSource
      .getRepository(TransactionEntity)
      .createQueryBuilder('t')
      .where('t.ledger_id = :ledgerId', { ledgerId: scope.ledgerId });
  }
}
