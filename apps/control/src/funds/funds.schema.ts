import { ApiProperty } from '@nestjs/swagger';

/** The headline figures for one currency. */
export class CurrencyFundsSchema {
  @ApiProperty({ example: 'USD' }) currency: string;
  @ApiProperty({ type: 'integer', description: 'Unspent headroom across active budgets' }) available_cents: number;
  @ApiProperty({ type: 'integer', description: 'Reserved by intents held for approval' }) held_cents: number;
  @ApiProperty({ type: 'integer', description: 'Authorized or spent: pending, completed and executed intents' }) committed_cents: number;
}

/** One agent's spend account in the ledger; listed only when the ledger is ready. */
export class AgentFundsSchema {
  @ApiProperty({ format: 'uuid' }) agent_id: string;
  @ApiProperty() agent_name: string;
  @ApiProperty({ example: 'spend:<agent_id>' }) ledger_account: string;
  @ApiProperty({ type: 'integer' }) committed_cents: number;
  @ApiProperty({ type: 'integer' }) held_cents: number;
  @ApiProperty({ example: 'USD' }) currency: string;
}

/** Funds of reference s.7, in the primary currency (USD when in use), plus every currency in use. */
export class FundsSchema extends CurrencyFundsSchema {
  @ApiProperty({ type: 'integer' }) ledger_committed_cents: number;
  @ApiProperty({ type: 'integer', description: 'committed_cents - ledger_committed_cents, floored at 0' }) unprojected_cents: number;
  @ApiProperty({ description: 'False when the ledger is off, absent or failing; by_agent is then empty' }) ledger_ready: boolean;
  @ApiProperty({ type: [AgentFundsSchema] }) by_agent: AgentFundsSchema[];
  @ApiProperty({ type: [CurrencyFundsSchema] }) by_currency: CurrencyFundsSchema[];
}
