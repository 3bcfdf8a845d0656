import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, SelectQueryBuilder } from 'typeorm';
import { AccountType } from '../accounts/account-kinds';
import { BalanceTotals, BalanceTotalsRow, totalsOf } from '../balances/balance';
import { LedgerScope } from '../common/mode';
import { POSTING_COLUMNS } from '../postings/posting.columns';
import { PostingEntity } from '../postings/posting.entity';
import { TransactionPlan } from './transaction-plan';
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

/** Key of the ledger-wide lock: writes hold it shared, period closes exclusively. */
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

const LEDGER_LOCK = `hashtextextended('books:' || $1::uuid::text, 0)`;

const ACCOUNT_STATE = `a.id, a.type, a.currency, a.status, a.overdraft_policy AS "overdraftPolicy",
  a.overdraft_limit::text AS "overdraftLimit", a.lock_version AS "lockVersion",
  b.posted_debits::text AS "postedDebits", b.posted_credits::text AS "postedCredits",
  b.pending_debits::text AS "pendingDebits", b.pending_credits::text AS "pendingCredits"`;
const ACCOUNT_STATE_FROM = `accounts a JOIN account_balances b ON b.ledger_id = a.ledger_id AND b.account_id = a.id`;

type LockedRow = Omit<LockedAccount, 'overdraftLimit' | 'totals'> & BalanceTotalsRow & { overdraftLimit: string };

function lockedMap(rows: LockedRow[]): Map<string, LockedAccount> {
  return new Map(rows.map((r) => [r.id, { ...r, overdraftLimit: BigInt(r.overdraftLimit), totals: totalsOf(r) }]));
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
   * other in a cycle) after taking the ledger's write lock shared. Absent ids are simply missing.
   */
  async lockAccounts(manager: EntityManager, scope: LedgerScope, ids: string[]): Promise<Map<string, LockedAccount>> {
    const rows: LockedRow[] = await manager.query(
      `WITH guard AS MATERIALIZED (SELECT pg_advisory_xact_lock_shared(${LEDGER_LOCK}))
       SELECT ${ACCOUNT_STATE} FROM guard, ${ACCOUNT_STATE_FROM}
       WHERE a.ledger_id = $1 AND a.id = ANY($2::text[])
       ORDER BY a.id
       FOR NO KEY UPDATE OF a, b`,
      [scope.ledgerId, [...new Set(ids)].sort()],
    );
    return lockedMap(rows);
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
    await manager.query(`SELECT pg_advisory_xact_lock(${LEDGER_LOCK})`, [scope.ledgerId]);
  }

  /**
   * Writes the transaction, its external refs and postings, voids released pending legs and moves
   * the balance rows, in one statement. Null when the idempotency key already names a
   * transaction (nothing written). Fewer refs than planned means one was taken.
   */
  async write(
    manager: EntityManager,
    scope: LedgerScope,
    plan: TransactionPlan,
    deltas: BalanceDelta[],
  ): Promise<WrittenTransaction | null> {
    const p = plan.postings;
    const refs = plan.externalRefs;
    const [row] = await manager.query(
      `WITH t AS (
         INSERT INTO transactions (ledger_id, idempotency_key, kind, reverses, refund_amount, refund_currency, metadata, value_date)
         VALUES ($1, $2, $3, $4, $5::numeric, $6, $7, $8)
         ON CONFLICT (ledger_id, idempotency_key) DO NOTHING
         RETURNING id, ledger_id AS "ledgerId", idempotency_key AS "idempotencyKey", kind, reverses,
           refund_amount::text AS "refundAmount", refund_currency AS "refundCurrency", metadata, value_date AS "valueDate",
           booking_date AS "bookingDate", created_at AS "createdAt", updated_at AS "updatedAt"
       ), r AS (
         INSERT INTO transaction_external_refs (ledger_id, transaction_id, rail, ref_kind, value, metadata)
         SELECT $1, t.id, x.rail, x.kind, x.value, x.metadata
         FROM t, unnest($9::text[], $10::text[], $11::text[], $12::jsonb[]) AS x(rail, kind, value, metadata)
         ON CONFLICT (ledger_id, rail, ref_kind, value) DO NOTHING
         RETURNING id, transaction_id AS "transactionId", rail, ref_kind AS "refKind", value, metadata, created_at AS "createdAt"
       ), p AS (
         INSERT INTO postings (ledger_id, transaction_id, account_id, amount, currency, direction, pending, tags, value_date)
         SELECT $1, t.id, x.account, x.amount, x.currency, x.direction, x.pending, x.tags, t."valueDate"
         FROM t, unnest($13::text[], $14::numeric[], $15::text[], $16::text[], $17::boolean[], $18::jsonb[])
           WITH ORDINALITY AS x(account, amount, currency, direction, pending, tags, n)
         ORDER BY x.n
         RETURNING id::text AS id, ledger_id AS "ledgerId", transaction_id AS "transactionId", account_id AS "accountId",
           amount::text AS amount, currency, direction, pending, committed_at AS "committedAt", voided_at AS "voidedAt", tags,
           value_date AS "valueDate", reconciled_at AS "reconciledAt", reconciliation_reference AS "reconciliationReference",
           created_at AS "createdAt"
       ), v AS (
         UPDATE postings SET voided_at = clock_timestamp()
         FROM t WHERE postings.id = ANY($19::bigint[]) AND postings.pending AND postings.voided_at IS NULL
         RETURNING postings.id
       ), b AS (
         ${MOVE_BALANCES}
         FROM t, unnest($20::text[], $21::numeric[], $22::numeric[], $23::numeric[], $24::numeric[]) AS d(account, pd, pc, qd, qc)
         WHERE account_balances.ledger_id = $1 AND account_balances.account_id = d.account
         RETURNING 1
       )
       SELECT
         (SELECT row_to_json(t) FROM t) AS transaction,
         (SELECT coalesce(json_agg(r), '[]') FROM r) AS refs,
         (SELECT coalesce(json_agg(p ORDER BY p.id::bigint), '[]') FROM p) AS postings,
         (SELECT count(*) FROM v)::int AS voided,
         (SELECT count(*) FROM b)::int AS balances`,
      [
        scope.ledgerId,
        plan.idempotencyKey,
        plan.kind,
        plan.reverses,
        plan.refund?.amount.toString() ?? null,
        plan.refund?.currency ?? null,
        JSON.stringify(plan.metadata),
        plan.valueDate,
        refs.map((x) => x.rail),
        refs.map((x) => x.kind),
        refs.map((x) => x.value),
        refs.map((x) => JSON.stringify(x.metadata)),
        p.map((x) => x.account),
        p.map((x) => x.amount.toString()),
        p.map((x) => x.currency),
        p.map((x) => x.direction),
        p.map((x) => x.pending),
        p.map((x) => JSON.stringify(x.tags)),
        plan.voids?.postingIds ?? [],
        ...deltaParams(deltas),
      ],
    );
    if (!row.transaction) return null;
    return {
      transaction: transactionFromJson(row.transaction),
      postings: (row.postings as Record<string, unknown>[]).map(postingFromJson),
      refs: (row.refs as Record<string, unknown>[]).map(refFromJson),
    };
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

type Json = Record<string, unknown>;

/** Timestamps come back from json as strings; every other column was aliased and cast in SQL. */
function withDates<T>(j: Json, keys: string[]): T {
  const out: Json = { ...j };
  for (const k of keys) out[k] = j[k] === null || j[k] === undefined ? null : new Date(j[k] as string);
  return out as T;
}

function transactionFromJson(j: Json): TransactionEntity {
  return withDates(j, ['valueDate', 'bookingDate', 'createdAt', 'updatedAt']);
}

function postingFromJson(j: Json): PostingEntity {
  return withDates(j, ['committedAt', 'voidedAt', 'valueDate', 'reconciledAt', 'createdAt']);
}

function refFromJson(j: Json): ExternalRefRecord {
  return withDates(j, ['createdAt']);
}
