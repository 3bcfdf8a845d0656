import { ApiProperty } from '@nestjs/swagger';
import { ACCOUNT_TYPES, FUND_CLASSIFICATIONS } from '../../accounts/account-kinds';

/** Wire shape of an account template (documentation only; presentAccountTemplate builds it). */
export class AccountTemplateResponse {
  @ApiProperty({ enum: ['account_template'] }) object: 'account_template';
  @ApiProperty({ description: 'The key: unique per ledger' }) name: string;
  @ApiProperty({ enum: ACCOUNT_TYPES }) accounting_type: string;
  @ApiProperty({ type: [String], description: 'Empty means any currency' }) allowed_currencies: string[];
  @ApiProperty() balance_non_negative: boolean;
  @ApiProperty({ type: 'string', nullable: true }) description: string | null;
  @ApiProperty({ type: 'string', enum: FUND_CLASSIFICATIONS, nullable: true }) fund_classification: string | null;
  @ApiProperty({ type: 'string', nullable: true }) custody_provider: string | null;
  @ApiProperty({ type: 'string', nullable: true }) custody_external_id: string | null;
  @ApiProperty({ type: 'object', additionalProperties: true }) metadata: Record<string, unknown>;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}
