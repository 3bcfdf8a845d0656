import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AccessGrant } from '../auth/access-token.service';
import { AuthErrors } from '../auth/auth-errors';
import { AnonymizationRecord, AnonymizationRepository } from './anonymization.repository';

/** Step-up: the token must have been issued this recently (ledger-api.md, Limits). */
export const STEP_UP_MAX_TOKEN_AGE_SECONDS = 300;

@Injectable()
export class AnonymizationService {
  constructor(
    private readonly anonymizations: AnonymizationRepository,
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
    return this.dataSource.transaction((manager) =>
      this.anonymizations.anonymize(manager, scope, { clientId: caller.clientId, reason }),
    );
  }
}
