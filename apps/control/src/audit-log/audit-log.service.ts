import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import {
  type LogCheckpointRow,
  type LogEntryRow,
  LogProofs,
  LogSealer,
  LogStore,
  type LogVerification,
  verifyLogInSnapshot,
} from '@bursar/service-kit';
import { notFound } from '../common/control-errors';
import { type Page, pageLimit } from '../common/pagination';
import { ControlSettings } from '../config/control.settings';
import { CosignKeysService } from '../cosign/cosign-keys.service';
import { AuditLogErrors } from './audit-log.errors';
import { AuditLogSource } from './audit-log.source';

/** Checkpoints name the workspace whose log they sign. */
const SUBJECT = 'workspace_id';
/** Audit events sealed per transaction. */
const SEAL_BATCH = 1_000;
/** Stateless: the sealer builds leaves and the verifier rebuilds them through the same reads. */
const source = new AuditLogSource();

type AuditLogSettings = Pick<ControlSettings, 'AUDIT_LOG_CHECKPOINT_EVERY' | 'AUDIT_LOG_CHECKPOINT_SECONDS'>;

const hex = (b: Buffer) => b.toString('hex');

function presentLogEntry(e: LogEntryRow) {
  return { index: Number(e.index), type: e.type, resource_id: e.resource_id, committed_at: e.committed_at.toISOString(), leaf: e.leaf, leaf_hash: hex(e.leaf_hash) };
}

function presentCheckpoint(c: LogCheckpointRow) {
  return { workspace_id: c.log_id, tree_size: Number(c.tree_size), root_hash: hex(c.root_hash), kid: c.kid, token: c.token, signed_at: c.signed_at.toISOString() };
}

/**
 * One workspace's log checked against the rows it was sealed from, checkpoints against control's
 * published keys. The service and `control:admin verify-log` both check through this.
 */
export function verifyAuditLog(dataSource: DataSource, keys: Pick<CosignKeysService, 'verifyingKey'>, workspaceId: string): Promise<LogVerification> {
  return verifyLogInSnapshot(dataSource, { store: new LogStore(dataSource), source, subject: SUBJECT, keyFor: (kid) => keys.verifyingKey(kid) }, workspaceId);
}

/**
 * Control's audit log as a verifiable Merkle log per workspace (docs/verifiable-records.md): audit
 * events are sealed after they commit, in commit order, and checkpoints are signed with the
 * cosigning keys. Every read names its workspace.
 */
@Injectable()
export class AuditLogService {
  private readonly store: LogStore;
  private readonly proofs: LogProofs;
  private readonly sealer: LogSealer;

  constructor(
    private readonly dataSource: DataSource,
    private readonly keys: CosignKeysService,
    @Inject(ControlSettings) settings: AuditLogSettings,
  ) {
    this.store = new LogStore(dataSource);
    this.proofs = new LogProofs(this.store);
    this.sealer = new LogSealer(dataSource, this.store, source, {
      subject: SUBJECT,
      batch: SEAL_BATCH,
      checkpointEvery: settings.AUDIT_LOG_CHECKPOINT_EVERY,
      checkpointSeconds: settings.AUDIT_LOG_CHECKPOINT_SECONDS,
      // Only while cosigning is configured: its keys are the ones /.well-known/jwks.json publishes.
      signer: async () => (keys.enabled ? keys.signingKey() : null),
    });
  }

  private get em(): EntityManager {
    return this.store.manager;
  }

  /** Seals every final audit event not yet in its log; what it sealed (0 while another replica seals). */
  sealAll(): Promise<number> {
    return this.sealer.sealAll();
  }

  /** One round of the sealing loop (LogSealer.round): full batches, then the checkpoints due. */
  round(): Promise<number> {
    return this.sealer.round();
  }

  async entries(workspaceId: string, q: { after?: number; limit?: number; resource_id?: string }): Promise<Page<ReturnType<typeof presentLogEntry>>> {
    const limit = pageLimit(q);
    const rows = await this.store.entries(this.em, workspaceId, { afterIndex: q.after ?? -1, limit, resourceId: q.resource_id });
    const hasMore = rows.length === limit;
    return { data: rows.map(presentLogEntry), has_more: hasMore, next_cursor: hasMore ? rows[rows.length - 1].index : null };
  }

  async latestCheckpoint(workspaceId: string) {
    const [latest] = await this.store.checkpoints(this.em, workspaceId, { limit: 1 });
    if (!latest) throw notFound('checkpoint');
    return presentCheckpoint(latest);
  }

  async checkpoints(workspaceId: string, q: { limit?: number; cursor?: number }): Promise<Page<ReturnType<typeof presentCheckpoint>>> {
    const limit = pageLimit(q);
    const rows = await this.store.checkpoints(this.em, workspaceId, { beforeSize: q.cursor, limit });
    const hasMore = rows.length === limit;
    return { data: rows.map(presentCheckpoint), has_more: hasMore, next_cursor: hasMore ? rows[rows.length - 1].tree_size : null };
  }

  /** Seals everything final, then signs the log's head now (or answers the checkpoint already at that size). */
  async checkpointNow(workspaceId: string) {
    if (!this.keys.enabled) throw AuditLogErrors.error('audit_log_signing_not_configured');
    const signed = await this.sealer.checkpointNow(workspaceId);
    if (!signed) throw AuditLogErrors.error('audit_log_empty');
    return presentCheckpoint(signed);
  }

  async inclusion(workspaceId: string, index: number, treeSize: number) {
    await this.withinLog(workspaceId, treeSize);
    if (index >= treeSize) throw AuditLogErrors.error('index_out_of_range', { param: 'index', message: `index ${index} is not inside a tree of ${treeSize} entries` });
    const proof = await this.proofs.inclusion(this.em, workspaceId, index, treeSize);
    return { index, tree_size: treeSize, leaf_hash: hex(proof.leafHash), root_hash: hex(proof.rootHash), audit_path: proof.path.map(hex) };
  }

  async consistency(workspaceId: string, fromSize: number, toSize: number) {
    await this.withinLog(workspaceId, toSize);
    if (fromSize > toSize) throw AuditLogErrors.error('tree_size_out_of_range', { param: 'from_size', message: `from_size ${fromSize} is larger than to_size ${toSize}` });
    const proof = await this.proofs.consistency(this.em, workspaceId, fromSize, toSize);
    return { from_size: fromSize, to_size: toSize, from_root: hex(proof.fromRoot), to_root: hex(proof.toRoot), proof: proof.path.map(hex) };
  }

  verify(workspaceId: string): Promise<LogVerification> {
    return verifyAuditLog(this.dataSource, this.keys, workspaceId);
  }

  /** Proofs are only given over entries already sealed. */
  private async withinLog(workspaceId: string, treeSize: number): Promise<void> {
    const size = (await this.store.head(this.em, workspaceId)).frontier.size;
    if (treeSize > size) {
      throw AuditLogErrors.error('tree_size_out_of_range', { message: `The audit log holds ${size} entries; a tree of ${treeSize} cannot be proven yet`, fields: { log_size: size } });
    }
  }
}
