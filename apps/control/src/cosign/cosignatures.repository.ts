import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { parseCents } from '../common/cents.transformer';
import { preparedQuery, StatementBatcher } from '@bursar/service-kit';

type RawIntent = { state: string | null; amount_cents: string | null; consumed: boolean };

export interface SpendableIntent {
  state: string;
  amount_cents: number;
  consumed: boolean;
}

/**
 * The intents a cosignature speaks for. A token carries its workspace in signed claims, so that
 * (verified) claim is the scope of these reads.
 */
@Injectable()
export class CosignaturesRepository {
  /** Verifications are read-only and frequent: concurrent ones share one statement. */
  private readonly reads = new StatementBatcher<{ workspaceId: string; intentId: string }, RawIntent>((keys) =>
    preparedQuery<RawIntent>(
      this.dataSource,
      `SELECT i.state, i.amount_cents::text AS amount_cents, i.cosign_consumed_at IS NOT NULL AS consumed
         FROM unnest($1::uuid[], $2::uuid[]) WITH ORDINALITY AS q(ws, id, n)
         LEFT JOIN intents i ON i.workspace_id = q.ws AND i.id = q.id
        ORDER BY q.n`,
      [keys.map((k) => k.workspaceId), keys.map((k) => k.intentId)],
    ),
  );

  /** Consumes of different intents share one statement; two of one intent never do (the second then finds it spent). */
  private readonly consumes = new StatementBatcher<{ workspaceId: string; intentId: string; amountCents: number; consumedBy: string | null }, boolean>(
    async (items) => {
      const won = await preparedQuery<{ n: string }>(
        this.dataSource,
        `UPDATE intents i SET cosign_consumed_at = now(), consumed_by = q.consumed_by, updated_at = now()
           FROM unnest($1::uuid[], $2::uuid[], $3::bigint[], $4::text[]) WITH ORDINALITY AS q(ws, id, amount, consumed_by, n)
          WHERE i.workspace_id = q.ws AND i.id = q.id AND i.amount_cents = q.amount AND i.state = 'pending' AND i.cosign_consumed_at IS NULL
          RETURNING q.n`,
        [items.map((c) => c.workspaceId), items.map((c) => c.intentId), items.map((c) => c.amountCents), items.map((c) => c.consumedBy)],
      );
      const winners = new Set(won.map((w) => Number(w.n)));
      return items.map((_, i) => winners.has(i + 1));
    },
    { conflictKey: (c) => c.intentId },
  );

  constructor(private readonly dataSource: DataSource) {}

  async find(workspaceId: string, intentId: string): Promise<SpendableIntent | null> {
    const row = await this.reads.submit({ workspaceId, intentId });
    return row.state === null ? null : { state: row.state, amount_cents: parseCents(row.amount_cents as string), consumed: row.consumed };
  }

  /**
   * Marks the authority spent in one conditional statement: of concurrent consumes exactly one sees
   * it unspent and wins. False when it was spent already or the intent left `pending` meanwhile.
   */
  async consume(workspaceId: string, intentId: string, amountCents: number, consumedBy: string | null): Promise<boolean> {
    return this.consumes.submit({ workspaceId, intentId, amountCents, consumedBy });
  }
}
