import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { LogStore, preparedQuery } from '@bursar/service-kit';
import { DataSource, EntityManager, SelectQueryBuilder } from 'typeorm';
import { AccountState, AccountStateRow, accountStateOf } from '../books/account-state';
import { BatchItemResult, ExternalRefRecord } from '../books/engine-batch';
import { TRANSACTION_CREATION_ENTRIES } from '../books-log/log-entry-types';
import { LedgerScope } from '../common/mode';
import { POSTING_COLUMNS } from '../postings/posting.columns';
import { PostingEntity } from '../postings/posting.entity';
import { TransactionEntity } from './transaction.entity';

export const TRANSACTION_COLUMNS = `t.id, t.ledger_id AS "ledgerId", t.idempotency_key AS "idempotencyKey", t.kind, t.reverses,
  t.refund_amount::text AS "refundAmount", t.refund_currency AS "refundCurrency", t.metadata, t.value_date AS "valueDate",
  t.booking_date AS "bookingDate", t.created_at AS "createdAt", t.updated_at AS "updatedAt"`;

const REF_COLUMNS = `r.id, r.transaction_id AS "transactionId", r.rail, r.ref_kind AS "refKind", r.value, r.metadata,
  r.created_at AS "createdAt"`;

/** Key of the ledger-wide lock (writes hold it shared, period closes exclusively) for the ledger id expression `ledger`. */
const ledgerLock = (ledger = '$1') => `hashtextextended('books:' || ${ledger}::uuid::text, 0)`;

const ACCOUNT_STATE = `a.id, a.type, a.currency, a.status, a.overdraft_policy AS "overdraftPolicy",
  a.overdraft_limit::text AS "overdraftLimit", a.lock_version AS "lockVersion",
  b.posted_debits::text AS "postedDebits", b.posted_credits::text AS "postedCredits",
  b.pending_debits::text AS "pendingDebits", b.pending_credits::text AS "pendingCredits"`;
const ACCOUNT_STATE_FROM = `accounts a JOIN account_balances b ON b.ledger_id = a.ledger_id AND b.account_id = a.id`;

/** The SQLSTATE ledger_write_batch raises when a key or ref was taken by a write still in flight as it read: call again. */
export const WRITE_RACED = 'BK002';

const WRITE_BATCH = `SELECT ledger_write_batch($1::jsonb) AS results`;
const RESERVE_POSTING_IDS = `SELECT ARRAY(SELECT nextval(pg_get_serial_sequence('postings', 'id'))::text FROM generate_series(1, $1::int)) AS ids`;

/** A transaction's postings, and those of its refunds so far. */
export interface CorrectionHistory {
  postings: PostingEntity[];
  refunded: PostingEntity[];
}

@Injectable()
export class TransactionsRepository {
  private readonly log: LogStore;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    this.log = new LogStore(dataSource);
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

  /** Account states as they stand now, read without locking (for expanded reads). */
  async readAccounts(scope: LedgerScope, ids: string[]): Promise<Map<string, AccountState>> {
    const rows: AccountStateRow[] = await this.dataSource.query(
      `SELECT ${ACCOUNT_STATE} FROM ${ACCOUNT_STATE_FROM} WHERE a.ledger_id = $1 AND a.id = ANY($2::text[]) ORDER BY a.id`,
      [scope.ledgerId, [...new Set(ids)]],
    );
    return new Map(rows.map((r) => [r.id, accountStateOf(r)]));
  }

  /** Takes the ledger's write lock exclusively: waits for in-flight writes, holds new ones off. */
  async lockLedgerExclusive(manager: EntityManager, scope: LedgerScope): Promise<void> {
    await manager.query(`SELECT pg_advisory_xact_lock(${ledgerLock()})`, [scope.ledgerId]);
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

  /** The transactions the keys name (those that name one). */
  async findByKeys(scope: LedgerScope, keys: string[]): Promise<TransactionEntity[]> {
    return this.dataSource.query(`SELECT ${TRANSACTION_COLUMNS} FROM transactions t WHERE t.ledger_id = $1 AND t.idempotency_key = ANY($2::text[])`, [
      scope.ledgerId,
      keys,
    ]);
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
  /** Where each transaction's creation sits in the ledger's books log, once sealed (docs/verifiable-records.md). */
  logIndexesOf(scope: LedgerScope, ids: string[], manager?: EntityManager): Promise<Map<string, number>> {
    return this.log.indexesOf(manager ?? this.dataSource.manager, scope.ledgerId, TRANSACTION_CREATION_ENTRIES, ids);
  }

  async reversalsOf(scope: LedgerScope, ids: string[], manager?: EntityManager): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    const rows: { id: string; reverses: string }[] = await (manager ?? this.dataSource).query(
      `SELECT id, reverses FROM transactions WHERE ledger_id = $1 AND kind = 'reversal' AND reverses = ANY($2::uuid[])`,
      [scope.ledgerId, ids],
    );
    return new Map(rows.map((r) => [r.reverses, r.id]));
  }

  /**
   * Postings of transaction `id` and, apart, those of its refunds (each in id order), in one read:
   * what a correction, holding the transaction's lock (refunds take it too), builds its legs from.
   */
  async correctionHistory(manager: EntityManager, scope: LedgerScope, id: string): Promise<CorrectionHistory> {
    const rows: PostingEntity[] = await manager.query(
      `SELECT ${POSTING_COLUMNS} FROM postings p
       WHERE p.ledger_id = $1 AND p.transaction_id = ANY(ARRAY(
         SELECT $2::uuid UNION ALL SELECT r.id FROM transactions r WHERE r.ledger_id = $1 AND r.kind = 'refund' AND r.reverses = $2))
       ORDER BY p.id`,
      [scope.ledgerId, id],
    );
    return { postings: rows.filter((p) => p.transactionId === id), refunded: rows.filter((p) => p.transactionId !== id) };
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
