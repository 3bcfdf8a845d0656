import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { preparedQuery } from '@bursar/service-kit';
import { escapeLiteral } from 'pg';
import { DataSource, EntityManager, SelectQueryBuilder } from 'typeorm';
import { AccountType } from '../accounts/account-kinds';
import { BalanceTotals, BalanceTotalsRow, totalsOf } from '../balances/balance';
import { LedgerScope } from '../common/mode';
import { OpeningStatement } from '../common/transaction-opened-with';
import { StatementPart } from '../idempotency/idempotency.repository';
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

type Json = Record<string, unknown>;

const ACCOUNT_STATE = `a.id, a.type, a.currency, a.status, a.overdraft_policy AS "overdraftPolicy",
  a.overdraft_limit::text AS "overdraftLimit", a.lock_version AS "lockVersion",
  b.posted_debits::text AS "postedDebits", b.posted_credits::text AS "postedCredits",
  b.pending_debits::text AS "pendingDebits", b.pending_credits::text AS "pendingCredits"`;
const ACCOUNT_STATE_FROM = `accounts a JOIN account_balances b ON b.ledger_id = a.ledger_id AND b.account_id = a.id`;

type LockedRow = Omit<LockedAccount, 'overdraftLimit' | 'totals'> & BalanceTotalsRow & { overdraftLimit: string };

/** Locks accounts `ids` (a text[] expression) of ledger `ledger` (a uuid expression), ledger lock first. */
function lockAccountsSql(ledger: string, ids: string): string {
  return `WITH guard AS MATERIALIZED (SELECT pg_advisory_xact_lock_shared(${ledgerLock(ledger)}))
    SELECT ${ACCOUNT_STATE} FROM guard, ${ACCOUNT_STATE_FROM}
    WHERE a.ledger_id = ${ledger} AND a.id = ANY(${ids})
    ORDER BY a.id
    FOR NO KEY UPDATE OF a, b`;
}

function lockedMap(rows: LockedRow[]): Map<string, LockedAccount> {
  return new Map(rows.map((r) => [r.id, { ...r, overdraftLimit: BigInt(r.overdraftLimit), totals: totalsOf(r) }]));
}

/** An event to append with a write (the events table's row, minus what the scope gives). */
export interface NewEvent {
  type: string;
  resourceId: string | null;
  data: object;
}

/** Parameters recordWritten uses itself; the keys' part numbers its own from RECORD_PARAMS + 1. */
export const RECORD_PARAMS = 6;

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
    return lockedMap(await preparedQuery<LockedRow>(manager, lockAccountsSql('$1', '$2::text[]'), [scope.ledgerId, lockOrder(ids)]));
  }

  /**
   * The same lock as a statement that opens a transaction (see transactionOpenedWith): BEGIN and
   * the locking read travel in one message, so its values are inlined as escaped literals.
   */
  lockAccountsOpening(scope: LedgerScope, ids: string[]): OpeningStatement<Map<string, LockedAccount>> {
    const idList = lockOrder(ids).map((id) => escapeLiteral(id)).join(', ');
    return {
      sql: lockAccountsSql(`${escapeLiteral(scope.ledgerId)}::uuid`, `ARRAY[${idList}]::text[]`),
      read: (rows) => lockedMap(rows as LockedRow[]),
    };
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
   * Writes transactions with their external refs and postings, voids released pending legs and
   * moves the balance rows by `deltas`, all in one statement. Answers in plan order; null where
   * the idempotency key already names a transaction (nothing of that plan was written, and with a
   * single plan nothing at all). Fewer refs than planned means one was taken.
   */
  async write(manager: EntityManager, scope: LedgerScope, plans: TransactionPlan[], deltas: BalanceDelta[]): Promise<(WrittenTransaction | null)[]> {
    const ids = plans.map(() => randomUUID());
    const refs = plans.flatMap((plan, i) => plan.externalRefs.map((r) => ({ ...r, tx: ids[i] })));
    const legs = plans.flatMap((plan, i) => plan.postings.map((p) => ({ ...p, tx: ids[i] })));
    const [row] = await preparedQuery<Json>(
      manager,
      `WITH x AS (
         SELECT * FROM unnest($2::uuid[], $3::text[], $4::text[], $5::uuid[], $6::numeric[], $7::text[], $8::jsonb[], $9::timestamptz[])
           WITH ORDINALITY AS x(id, key, kind, reverses, refund_amount, refund_currency, metadata, value_date, n)
       ), t AS (
         INSERT INTO transactions (id, ledger_id, idempotency_key, kind, reverses, refund_amount, refund_currency, metadata, value_date)
         SELECT x.id, $1, x.key, x.kind, x.reverses, x.refund_amount, x.refund_currency, x.metadata, x.value_date FROM x ORDER BY x.n
         ON CONFLICT (ledger_id, idempotency_key) DO NOTHING
         RETURNING id, ledger_id AS "ledgerId", idempotency_key AS "idempotencyKey", kind, reverses,
           refund_amount::text AS "refundAmount", refund_currency AS "refundCurrency", metadata, value_date AS "valueDate",
           booking_date AS "bookingDate", created_at AS "createdAt", updated_at AS "updatedAt"
       ), r AS (
         INSERT INTO transaction_external_refs (ledger_id, transaction_id, rail, ref_kind, value, metadata)
         SELECT $1, t.id, y.rail, y.kind, y.value, y.metadata
         FROM unnest($10::uuid[], $11::text[], $12::text[], $13::text[], $14::jsonb[]) AS y(tx, rail, kind, value, metadata)
         JOIN t ON t.id = y.tx
         ON CONFLICT (ledger_id, rail, ref_kind, value) DO NOTHING
         RETURNING id, transaction_id AS "transactionId", rail, ref_kind AS "refKind", value, metadata, created_at AS "createdAt"
       ), p AS (
         INSERT INTO postings (ledger_id, transaction_id, account_id, amount, currency, direction, pending, tags, value_date)
         SELECT $1, t.id, z.account, z.amount, z.currency, z.direction, z.pending, z.tags, t."valueDate"
         FROM unnest($15::uuid[], $16::text[], $17::numeric[], $18::text[], $19::text[], $20::boolean[], $21::jsonb[])
           WITH ORDINALITY AS z(tx, account, amount, currency, direction, pending, tags, n)
         JOIN t ON t.id = z.tx
         ORDER BY z.n
         RETURNING id::text AS id, ledger_id AS "ledgerId", transaction_id AS "transactionId", account_id AS "accountId",
           amount::text AS amount, currency, direction, pending, committed_at AS "committedAt", voided_at AS "voidedAt", tags,
           value_date AS "valueDate", reconciled_at AS "reconciledAt", reconciliation_reference AS "reconciliationReference",
           created_at AS "createdAt"
       ), v AS (
         UPDATE postings SET voided_at = clock_timestamp()
         WHERE postings.id = ANY($22::bigint[]) AND postings.pending AND postings.voided_at IS NULL AND EXISTS (SELECT 1 FROM t)
         RETURNING postings.id
       ), b AS (
         ${MOVE_BALANCES}
         FROM unnest($23::text[], $24::numeric[], $25::numeric[], $26::numeric[], $27::numeric[]) AS d(account, pd, pc, qd, qc)
         WHERE account_balances.ledger_id = $1 AND account_balances.account_id = d.account AND EXISTS (SELECT 1 FROM t)
         RETURNING 1
       )
       SELECT
         (SELECT coalesce(json_agg(t), '[]') FROM t) AS transactions,
         (SELECT coalesce(json_agg(r), '[]') FROM r) AS refs,
         (SELECT coalesce(json_agg(p ORDER BY p.id::bigint), '[]') FROM p) AS postings,
         (SELECT count(*) FROM v)::int AS voided,
         (SELECT count(*) FROM b)::int AS balances`,
      [
        scope.ledgerId,
        ids,
        plans.map((x) => x.idempotencyKey),
        plans.map((x) => x.kind),
        plans.map((x) => x.reverses),
        plans.map((x) => x.refund?.amount.toString() ?? null),
        plans.map((x) => x.refund?.currency ?? null),
        plans.map((x) => JSON.stringify(x.metadata)),
        plans.map((x) => x.valueDate),
        refs.map((x) => x.tx),
        refs.map((x) => x.rail),
        refs.map((x) => x.kind),
        refs.map((x) => x.value),
        refs.map((x) => JSON.stringify(x.metadata)),
        legs.map((x) => x.tx),
        legs.map((x) => x.account),
        legs.map((x) => x.amount.toString()),
        legs.map((x) => x.currency),
        legs.map((x) => x.direction),
        legs.map((x) => x.pending),
        legs.map((x) => JSON.stringify(x.tags)),
        plans.flatMap((x) => x.voids?.postingIds ?? []),
        ...deltaParams(deltas),
      ],
    );
    const transactions = new Map((row.transactions as Json[]).map((j) => [j.id as string, transactionFromJson(j)]));
    const postings = (row.postings as Json[]).map(postingFromJson);
    const written = (row.refs as Json[]).map(refFromJson);
    return ids.map((id) => {
      const transaction = transactions.get(id);
      if (!transaction) return null;
      return {
        transaction,
        postings: postings.filter((p) => p.transactionId === id),
        refs: written.filter((r) => r.transactionId === id),
      };
    });
  }

  /**
   * Appends `events` (in order) and runs `keys`, the statement part storing the writes' idempotency
   * keys, in one statement of the caller's transaction; answers the ids of the keys stored. Rows
   * match EventsService.record's, so the relay and the events API see no difference.
   */
  async recordWritten(manager: EntityManager, scope: LedgerScope, events: NewEvent[], keys: StatementPart | null): Promise<Set<string>> {
    const [row] = await preparedQuery<Json>(
      manager,
      `WITH e AS (
         INSERT INTO events (organization_id, ledger_id, mode, type, resource_id, data)
         SELECT $1, $2, $3, x.type, x.resource_id, x.data
         FROM unnest($4::text[], $5::text[], $6::jsonb[]) WITH ORDINALITY AS x(type, resource_id, data, n)
         ORDER BY x.n
         RETURNING 1
       )${keys ? `, k AS (${keys.sql})` : ''}
       SELECT (SELECT count(*) FROM e)::int AS events, ${keys ? `(SELECT coalesce(json_agg(k.n), '[]') FROM k)` : `'[]'::json`} AS keys`,
      [
        scope.organizationId,
        scope.ledgerId,
        scope.mode,
        events.map((e) => e.type),
        events.map((e) => e.resourceId),
        events.map((e) => JSON.stringify(e.data)),
        ...(keys?.params ?? []),
      ],
    );
    return new Set(row.keys as string[]);
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
