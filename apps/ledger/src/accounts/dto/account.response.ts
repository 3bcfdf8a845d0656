import { ApiProperty } from '@nestjs/swagger';
import { ACCOUNT_KINDS, ACCOUNT_STATUSES, ACCOUNT_TYPES, FUND_CLASSIFICATIONS, OVERDRAFT_POLICIES } from '../account-kinds';

const nullableString = { type: 'string', nullable: true } as const;

/** Wire shape of an account (documentation only; presentAccount builds it). */
export class AccountResponse {
  @ApiProperty({ enum: ['account'] }) object: 'account';
  @ApiProperty({ pattern: '^[a-zA-Z0-9_:.\\-]+$', description: 'Caller-chosen, immutable' }) id: string;
  @ApiProperty() name: string;
  @ApiProperty({ enum: ACCOUNT_TYPES }) type: string;
  @ApiProperty() currency: string;
  @ApiProperty({ type: 'integer', nullable: true, description: 'null when the currency is unknown' }) currency_decimals: number | null;
  @ApiProperty({ enum: ['fiat', 'crypto', 'stablecoin'], nullable: true }) currency_kind: string | null;
  @ApiProperty() unknown_currency: boolean;
  @ApiProperty({ enum: OVERDRAFT_POLICIES }) overdraft_policy: string;
  @ApiProperty({ pattern: '^\\d+$', description: 'Minor units' }) overdraft_limit: string;
  @ApiProperty({ enum: ACCOUNT_KINDS }) account_kind: string;
  @ApiProperty(nullableString) counterparty_ref: string | null;
  @ApiProperty({ enum: FUND_CLASSIFICATIONS }) fund_classification: string;
  @ApiProperty(nullableString) custody_provider: string | null;
  @ApiProperty(nullableString) custody_external_id: string | null;
  @ApiProperty({ ...nullableString, description: 'Account template name' }) template: string | null;
  @ApiProperty(nullableString) parent_id: string | null;
  @ApiProperty(nullableString) ledgerable_type: string | null;
  @ApiProperty(nullableString) ledgerable_id: string | null;
  @ApiProperty({ type: 'object', additionalProperties: true }) metadata: Record<string, unknown>;
  @ApiProperty({ type: 'integer', description: '+1 per change' }) lock_version: number;
  @ApiProperty({ enum: ACCOUNT_STATUSES }) status: string;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true }) closed_at: string | null;
  @ApiProperty(nullableString) closed_by_label: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}
