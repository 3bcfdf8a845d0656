import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { LedgerScope, Mode } from '../common/mode';
import { SOURCE_COLUMNS, SourceRecord } from '../sources/source.record';

/** New push credentials of a source: the token's digest (lookup) and sealed copy (display), the sealed secret. */
export interface InboundCredentials {
  tokenDigest: string;
  tokenSealed: string;
  secretSealed: string;
}

/** The hosted inbound endpoint columns of reconciliation_sources. */
@Injectable()
export class InboundRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Turns the endpoint on with these credentials. Unless `replace`, only a disabled endpoint is
   * changed, so two parallel enables cannot hand out two secrets of which one is dead: the loser
   * gets null and answers with the live endpoint.
   */
  async enable(scope: LedgerScope, sourceId: string, credentials: InboundCredentials, replace: boolean): Promise<SourceRecord | null> {
    const [rows] = await this.dataSource.query(
      `UPDATE reconciliation_sources SET inbound_enabled = true, inbound_token_digest = $3, inbound_token_sealed = $4,
         inbound_secret_sealed = $5, updated_at = clock_timestamp()
       WHERE ledger_id = $1 AND id = $2 AND ($6 OR NOT inbound_enabled) RETURNING ${SOURCE_COLUMNS}`,
      [scope.ledgerId, sourceId, credentials.tokenDigest, credentials.tokenSealed, credentials.secretSealed, replace],
    );
    return rows[0] ?? null;
  }

  /** Turns the endpoint off and forgets its credentials: the old URL answers 404 from now on. */
  async disable(scope: LedgerScope, sourceId: string): Promise<SourceRecord | null> {
    const [rows] = await this.dataSource.query(
      `UPDATE reconciliation_sources SET inbound_enabled = false, inbound_token_digest = NULL, inbound_token_sealed = NULL,
         inbound_secret_sealed = NULL, updated_at = clock_timestamp()
       WHERE ledger_id = $1 AND id = $2 RETURNING ${SOURCE_COLUMNS}`,
      [scope.ledgerId, sourceId],
    );
    return rows[0] ?? null;
  }

  /**
   * The enabled source a push token belongs to, with its ledger, across every tenant: the token
   * (looked up by digest) is the only credential a push carries besides its signature.
   */
  async findByTokenDigest(digest: string): Promise<{ source: SourceRecord; scope: LedgerScope } | null> {
    const [row] = await this.dataSource.query(
      `SELECT s.*, l.organization_id AS "organizationId", l.mode
       FROM (SELECT ${SOURCE_COLUMNS} FROM reconciliation_sources WHERE inbound_token_digest = $1 AND inbound_enabled) s
       JOIN ledgers l ON l.id = s."ledgerId"`,
      [digest],
    );
    if (!row) return null;
    const { organizationId, mode, ...source } = row as SourceRecord & { organizationId: string; mode: Mode };
    return { source, scope: { organizationId, mode, ledgerId: source.ledgerId } };
  }
}
