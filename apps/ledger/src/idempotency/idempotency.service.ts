import { Inject, Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import type { Logger } from 'pino';
import { canonicalJson, SecretBox, sha256Hex } from '@bursar/crypto';
import { LOGGER } from '@bursar/service-kit';
import { LedgerSettings } from '../config/ledger.settings';
import { IdempotencyErrors } from './idempotency-errors';
import { completedKeysInsert, IdempotencyRepository, KeyScope, StatementPart, StoredKey } from './idempotency.repository';

/** A request still "in progress" after this long is presumed dead and its key may be taken over. */
export const IN_FLIGHT_TIMEOUT_MS = 60_000;
const SWEEP_INTERVAL_MS = 60 * 60 * 1000;

/** A key the handler must store with its write: where it lives and what request it names. */
export interface PendingKey {
  scope: KeyScope;
  fingerprint: string;
}

export type ClaimOutcome = { kind: 'claimed' } | { kind: 'replay'; status: number; body: unknown };

/**
 * What makes two requests "the same" for a key: path (with its ids), ledger choice, query and body,
 * in RFC 8785 canonical JSON so a retry that reorders fields is still the same request. A request
 * without a body hashes as body null, as fingerprints made before RFC 8785 did.
 */
export function fingerprintOf(parts: { path: string; ledger: string; query: unknown; body: unknown }): string {
  return sha256Hex(canonicalJson({ ...parts, body: parts.body ?? null }));
}

/** Binds a sealed response to its key, so it cannot be replayed under another. */
export function idempotencyAad(s: KeyScope): string {
  return [s.organizationId, s.mode, s.clientId, s.route, s.key].join('\n');
}

@Injectable()
export class IdempotencyService implements OnModuleInit, OnModuleDestroy {
  private sweeper?: NodeJS.Timeout;
  private readonly box: SecretBox;

  constructor(
    private readonly keys: IdempotencyRepository,
    private readonly settings: LedgerSettings,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.box = settings.rootKeys.sealedRows();
  }

  /**
   * Claims `scope` for a request with `fingerprint`, or says what to answer instead: the stored
   * result of the same request (replay), 409 `in_progress` while it is still running, or 409
   * `already_exists` when the key was used for a different request.
   */
  async claim(scope: KeyScope, fingerprint: string): Promise<ClaimOutcome> {
    // A key released between our INSERT and SELECT is simply claimed on the next pass.
    for (let attempt = 0; attempt < 3; attempt++) {
      if (await this.keys.claim(scope, fingerprint, this.staleBefore(), this.expiredBefore())) return { kind: 'claimed' };
      const stored = await this.keys.find(scope);
      if (stored) return this.answerStored(scope, fingerprint, stored);
    }
    throw IdempotencyErrors.error('in_progress', { details: { idempotency_key: scope.key }, headers: { 'Retry-After': '1' } });
  }

  /**
   * The statement part storing keys of @Idempotent({ inWrite: true }) requests as completed, with
   * their responses (status and body), to run in the database transaction of the write they name
   * (see completedKeysInsert). When one is not stored, the caller rolls back and asks answerTaken.
   */
  completedKeysPart(keys: (PendingKey & { status: number; body: unknown })[], firstParam: number): StatementPart {
    const rows = keys.map((k) => ({ scope: k.scope, fingerprint: k.fingerprint, status: k.status, sealedBody: this.seal(k.scope, k.body) }));
    return completedKeysInsert(rows, this.staleBefore(), this.expiredBefore(), firstParam);
  }

  /** What a request whose key was taken gets: the replay, or 409; null when no row holds the key. */
  async answerTaken(pending: PendingKey): Promise<ClaimOutcome | null> {
    const stored = await this.keys.find(pending.scope);
    return stored && this.answerStored(pending.scope, pending.fingerprint, stored);
  }

  /**
   * A key someone holds: 409 `already_exists` for a different request, 409 `in_progress` while
   * its holder runs, else the stored result to replay.
   */
  private answerStored(scope: KeyScope, fingerprint: string, stored: StoredKey): ClaimOutcome {
    if (stored.fingerprint !== fingerprint) {
      throw IdempotencyErrors.error('already_exists', {
        param: 'Idempotency-Key',
        hint: 'Use a new key for a different request; reuse a key only to retry the identical request',
        details: { idempotency_key: scope.key },
      });
    }
    if (stored.state === 'in_progress') {
      throw IdempotencyErrors.error('in_progress', {
        hint: 'Retry shortly with the same key to get the result',
        details: { idempotency_key: scope.key },
        headers: { 'Retry-After': '1' },
      });
    }
    const body = stored.responseBody === null ? null : JSON.parse(this.box.decrypt(stored.responseBody, idempotencyAad(scope)));
    return { kind: 'replay', status: stored.responseStatus ?? 200, body };
  }

  /** Stores the response sealed: replayed bodies can hold secrets shown once. */
  complete(scope: KeyScope, status: number, body: unknown): Promise<void> {
    return this.keys.complete(scope, status, this.seal(scope, body));
  }

  private seal(scope: KeyScope, body: unknown): string {
    return this.box.encrypt(JSON.stringify(body ?? null), idempotencyAad(scope));
  }

  private staleBefore(): Date {
    return new Date(Date.now() - IN_FLIGHT_TIMEOUT_MS);
  }

  release(scope: KeyScope): Promise<void> {
    return this.keys.release(scope);
  }

  onModuleInit(): void {
    if (!this.retentionMs()) return;
    this.sweeper = setInterval(() => void this.sweep(), SWEEP_INTERVAL_MS);
    this.sweeper.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.sweeper);
  }

  async sweep(): Promise<number> {
    const before = this.expiredBefore();
    if (!before) return 0;
    try {
      return await this.keys.purge(before);
    } catch (err) {
      this.logger.warn({ err }, 'idempotency key sweep failed; retrying next interval');
      return 0;
    }
  }

  private retentionMs(): number {
    return this.settings.LEDGER_IDEMPOTENCY_RETENTION_HOURS * 60 * 60 * 1000;
  }

  /** Results completed before this are forgotten; null while keys are kept forever (the default). */
  private expiredBefore(): Date | null {
    return this.retentionMs() ? new Date(Date.now() - this.retentionMs()) : null;
  }
}
