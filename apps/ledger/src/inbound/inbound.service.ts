import { Injectable } from '@nestjs/common';
import { digestSecret, randomToken, SecretBox, verifySignatureHeader } from '@bursar/crypto';
import { LedgerSettings } from '../config/ledger.settings';
import { LedgerErrors } from '../common/ledger-errors';
import { LedgerScope } from '../common/mode';
import { ExternalTransactionsService } from '../external-transactions/external-transactions.service';
import { openInboundSecret, openInboundToken, sealInboundSecret, sealInboundToken } from '../sources/inbound-credentials';
import { SourceRecord } from '../sources/source.record';
import { SourcesService } from '../sources/sources.service';
import { InboundRepository } from './inbound.repository';

/** How far a push's signed timestamp may be from now. */
const SIGNATURE_TOLERANCE_SECONDS = 300;

export interface InboundEndpoint {
  source: SourceRecord;
  token: string | null;
  url: string | null;
  /** Only when it was minted by this call. */
  secret?: string;
}

export interface InboundResult {
  received: number;
  created: number;
  replayed: number;
  errors: number;
}

@Injectable()
export class InboundService {
  private readonly box: SecretBox;
  readonly signatureHeader: string;

  constructor(
    private readonly inbound: InboundRepository,
    private readonly sources: SourcesService,
    private readonly externalTransactions: ExternalTransactionsService,
    settings: LedgerSettings,
  ) {
    this.box = settings.rootKeys.sealedRows();
    this.signatureHeader = `${settings.WEBHOOK_BRAND}-Inbound-Signature`;
  }

  /**
   * Turns on the source's push URL and mints its signing secret (returned this once). While it is
   * on, a repeat call keeps URL and secret (and shows no secret) unless `rotate`, which mints both anew.
   */
  async enable(scope: LedgerScope, sourceId: string, rotate: boolean): Promise<InboundEndpoint> {
    const source = await this.sources.get(scope, sourceId);
    if (source.inboundEnabled && !rotate) return this.endpointOf(source);
    const token = randomToken(32);
    const secret = `insec_${scope.mode}_${randomToken(32)}`;
    const enabled = await this.inbound.enable(
      scope,
      source.id,
      {
        tokenDigest: digestSecret(token),
        tokenSealed: sealInboundToken(this.box, source.id, token),
        secretSealed: sealInboundSecret(this.box, source.id, secret),
      },
      rotate,
    );
    // A parallel enable got there first: its endpoint stands, its secret is the one to use.
    if (!enabled) return this.endpointOf(await this.sources.get(scope, sourceId));
    return { ...this.endpointOf(enabled), secret };
  }

  async disable(scope: LedgerScope, sourceId: string): Promise<InboundEndpoint> {
    await this.sources.get(scope, sourceId);
    const source = await this.inbound.disable(scope, sourceId);
    if (!source) throw LedgerErrors.error('not_found', { message: `No source ${sourceId}` });
    return this.endpointOf(source);
  }

  /**
   * A push to the hosted endpoint: the token must name an enabled source (else 404, checked first),
   * then the signature header must carry a v1 HMAC-SHA256 of `<t>.<raw body>` under the source's
   * secret with t within 300 s (else 401). Lands the items like an ingest call; never matches.
   * Answers with the ledger the source lives in (for the envelope's livemode).
   */
  async push(token: string, rawBody: Buffer, signature: string | undefined, body: unknown): Promise<{ scope: LedgerScope; result: InboundResult }> {
    const found = await this.inbound.findByTokenDigest(digestSecret(token));
    if (!found?.source.inboundSecretSealed) throw LedgerErrors.error('not_found', { message: 'No enabled inbound source has this URL' });
    const { source, scope } = found;
    const secret = openInboundSecret(this.box, source.id, found.source.inboundSecretSealed);
    const verdict = signature === undefined ? null : verifySignatureHeader(rawBody, signature, secret, { toleranceSeconds: SIGNATURE_TOLERANCE_SECONDS });
    if (!verdict?.ok) {
      throw LedgerErrors.error('unauthorized', {
        message: verdict ? `Bad ${this.signatureHeader}: ${verdict.reason}` : `Missing ${this.signatureHeader}`,
        hint: `Send ${this.signatureHeader}: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>, t within 300 s of now`,
      });
    }
    const items = body !== null && typeof body === 'object' && 'items' in body ? (body as { items: unknown }).items : [body];
    this.externalTransactions.assertItemCount(items);
    const outcome = await this.externalTransactions.ingest(scope, source, items);
    const result = { received: items.length, created: outcome.createdCount, replayed: outcome.replayedCount, errors: outcome.errorCount };
    return { scope, result };
  }

  private endpointOf(source: SourceRecord): InboundEndpoint {
    const token = source.inboundEnabled && source.inboundTokenSealed ? openInboundToken(this.box, source.id, source.inboundTokenSealed) : null;
    return { source, token, url: this.sources.inboundUrl(source) };
  }
}
