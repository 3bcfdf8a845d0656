import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { PolledWorker } from '@bursar/queue';
import { LOGGER, LogProofs, LogSealer, LogStore } from '@bursar/service-kit';
import { LedgerSettings } from '../config/ledger.settings';
import { LedgerScope } from '../common/mode';
import { BooksLogErrors } from './books-log-errors';
import { LogChangesRepository } from './log-changes.repository';
import { LogKeysService } from './log-keys.service';

/**
 * Each ledger's books as a Merkle log (docs/verifiable-records.md). A poller seals committed
 * changes in commit order and signs checkpoints when due; the routes serve entries, checkpoints and
 * proofs of the ledger a request is scoped to.
 */
@Injectable()
export class BooksLogService extends PolledWorker {
  readonly store: LogStore;
  private readonly sealer: LogSealer;
  private readonly proofs: LogProofs;

  constructor(
    private readonly dataSource: DataSource,
    changes: LogChangesRepository,
    readonly keys: LogKeysService,
    private readonly settings: LedgerSettings,
    @Inject(LOGGER) logger: Logger,
  ) {
    super('ledger-books-log', logger);
    this.store = new LogStore(dataSource);
    this.proofs = new LogProofs(this.store);
    this.sealer = new LogSealer(dataSource, this.store, changes, {
      subject: 'ledger_id',
      batch: settings.LEDGER_LOG_SEAL_BATCH,
      checkpointEvery: settings.LEDGER_LOG_CHECKPOINT_EVERY,
      checkpointSeconds: settings.LEDGER_LOG_CHECKPOINT_SECONDS,
      signer: () => keys.signingKey(),
    });
  }

  override async onApplicationBootstrap(): Promise<void> {
    await this.keys.ensure();
    await super.onApplicationBootstrap();
  }

  protected get intervalMs(): number {
    return this.settings.LEDGER_LOG_SEAL_INTERVAL_MS;
  }

  /** A round drains full batches itself, so the poller always waits its interval after one. */
  protected async step(): Promise<number> {
    await this.sealer.round();
    return 0;
  }

  /** Seals every final change of every ledger now (operator tools, tests); what it sealed. */
  sealAll(): Promise<number> {
    return this.sealer.sealAll(true);
  }

  async sealedSize(scope: LedgerScope): Promise<number> {
    return (await this.store.head(this.dataSource.manager, scope.ledgerId)).frontier.size;
  }

  entries(scope: LedgerScope, page: { afterIndex: number; limit: number; resourceId?: string }) {
    return this.store.entries(this.dataSource.manager, scope.ledgerId, page);
  }

  latestCheckpoint(scope: LedgerScope) {
    return this.store.checkpoints(this.dataSource.manager, scope.ledgerId, { limit: 1 }).then((rows) => rows[0] ?? null);
  }

  checkpoints(scope: LedgerScope, page: { beforeSize?: number; limit: number }) {
    return this.store.checkpoints(this.dataSource.manager, scope.ledgerId, page);
  }

  /** Seals what is final, then signs the head now (or answers the checkpoint already signed at that size). */
  async checkpointNow(scope: LedgerScope) {
    const checkpoint = await this.sealer.checkpointNow(scope.ledgerId);
    if (!checkpoint) throw BooksLogErrors.error('checkpoint_unavailable');
    return checkpoint;
  }

  async inclusion(scope: LedgerScope, index: number, treeSize: number) {
    await this.withinSealed(scope, treeSize, 'tree_size');
    if (index >= treeSize) throw BooksLogErrors.error('log_size_exceeded', { message: 'index must be below tree_size', param: 'index', details: { tree_size: treeSize } });
    return this.proofs.inclusion(this.dataSource.manager, scope.ledgerId, index, treeSize);
  }

  async consistency(scope: LedgerScope, fromSize: number, toSize: number) {
    await this.withinSealed(scope, toSize, 'to_size');
    if (fromSize > toSize) throw BooksLogErrors.error('log_size_exceeded', { message: 'from_size must not exceed to_size', param: 'from_size', details: { to_size: toSize } });
    return this.proofs.consistency(this.dataSource.manager, scope.ledgerId, fromSize, toSize);
  }

  private async withinSealed(scope: LedgerScope, size: number, param: string): Promise<void> {
    const sealed = await this.sealedSize(scope);
    if (size > sealed) throw BooksLogErrors.error('log_size_exceeded', { param, details: { sealed_size: sealed } });
  }
}
