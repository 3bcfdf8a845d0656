import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { parseCents } from '../common/cents.transformer';
import { PreparedStatements } from '../database/prepared-statements';

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
  private readonly statements: PreparedStatements;

  constructor(dataSource: DataSource) {
    this.statements = new PreparedStatements(dataSource);
  }

  async find(workspaceId: string, intentId: string): Promise<SpendableIntent | null> {
    const [row] = await this.statements.run<{ state: string; amount_cents: string; consumed: boolean }>(
      null,
      'control_cosigned_intent',
      `SELECT state, amount_cents::text AS amount_cents, cosign_consumed_at IS NOT NULL AS consumed
         FROM intents WHERE workspace_id = $1 AND id = $2`,
      [workspaceId, intentId],
    );
    return row ? { state: row.state, amount_cents: parseCents(row.amount_cents), consumed: row.consumed } : null;
  }

  /**
   * Marks the authority spent in one conditional statement: of concurrent consumes exactly one sees
   * it unspent and wins. False when it was spent already or the intent left `pending` meanwhile.
   */
  async consume(workspaceId: string, intentId: string, amountCents: number, consumedBy: string | null): Promise<boolean> {
    const rows = await this.statements.run(
      null,
      'control_consume_cosignature',
      `UPDATE intents SET cosign_consumed_at = now(), consumed_by = $4, updated_at = now()
        WHERE workspace_id = $1 AND id = $2 AND amount_cents = $3 AND state = 'pending' AND cosign_consumed_at IS NULL
        RETURNING id`,
      [workspaceId, intentId, amountCents, consumedBy],
    );
    return rows.length === 1;
  }
}
