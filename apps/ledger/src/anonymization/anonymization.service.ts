import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AccessGrant } from '../auth/access-token.service';
import { AuthErrors } from '../auth/auth-errors';
import { TransactionsRepository } from '../transactions/transactions.repository';
import { AnonymizationRecord, AnonymizationRepository } from './anonymization.repository';

/** Step-up: the token must have been issued this recently (docs/contract/ledger-api.md, Limits). */
export const STEP_UP_MAX_TOKEN_AGE_SECONDS = 300;

@Injectable()
export class AnonymizationService {
  constructor(
    private readonly anonymizations: AnonymizationRepository,
    private readonly books: TransactionsRepository,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  /**
   * Irreversibly erases the metadata and party references of the caller's organization in the
   * caller's mode, keeping every amount, balance and link between money records. All of it
   * commits in one database transaction or none of it does.
   */
  async anonymize(caller: AccessGrant, reason: string | null): Promise<AnonymizationRecord> {
    const ageSeconds = (Date.now() - caller.issuedAt.getTime()) / 1000;
    if (ageSeconds > STEP_UP_MAX_TOKEN_AGE_SECONDS) {
      throw AuthErrors.error('fresh_authentication_required', {
        hint: 'Request a new access token from POST /oauth/token and retry within five minutes',
        details: { max_token_age_seconds: STEP_UP_MAX_TOKEN_AGE_SECONDS, token_age_seconds: Math.floor(ageSeconds) },
      });
    }
    const scope = { organizationId: caller.organizationId, mode: caller.mode };
    return this.dataSource.transaction(async (manager) => {
      const ledgerIds = await this.anonymizations.ledgerIds(manager, scope);
      // Each ledger's write lock, exclusively and in id order (as a period close takes it): postings
      // in flight finish first and new ones wait, so each lands wholly before or after the erasure.
      // Not a lock on the ledger rows: metadata edits lock their row and then reference the ledger.
      for (const ledgerId of ledgerIds) await this.books.lockLedgerExclusive(manager, { ...scope, ledgerId });
      return this.anonymizations.anonymize(manager, scope, { clientId: caller.clientId, reason });
    });
  }
}
