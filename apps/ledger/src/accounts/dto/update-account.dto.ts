import { Allow, IsString, Length } from 'class-validator';
import { FUND_CLASSIFICATIONS, FundClassification } from '../account-kinds';
import { Nullable, OptionalIn, OptionalText } from '@bursar/service-kit';
import { OptionalMetadata } from '../../common/optional-metadata.decorator';
import { IsAccountId } from '../account-id.validator';

/** Settable fields; nullable ones accept null to clear. The fixed fields are accepted only to refuse a change. */
export class UpdateAccountDto {
  @OptionalText(1, 500)
  name?: string;

  @OptionalMetadata()
  metadata?: Record<string, unknown>;

  @Nullable()
  @IsAccountId()
  parent_id?: string | null;

  @Nullable()
  @IsString()
  @Length(1, 200)
  ledgerable_type?: string | null;

  @Nullable()
  @IsString()
  @Length(1, 200)
  ledgerable_id?: string | null;

  @OptionalIn(FUND_CLASSIFICATIONS)
  fund_classification?: FundClassification;

  @Nullable({ description: 'Set with custody_external_id, or clear both with null' })
  @IsString()
  @Length(1, 200)
  custody_provider?: string | null;

  @Nullable()
  @IsString()
  @Length(1, 200)
  custody_external_id?: string | null;

  /** Fixed at creation: a different value is 409 immutable_field. */
  @Allow() id?: unknown;
  @Allow() type?: unknown;
  @Allow() currency?: unknown;
  @Allow() overdraft_policy?: unknown;
  @Allow() overdraft_limit?: unknown;
}

export const FIXED_ACCOUNT_FIELDS = ['id', 'type', 'currency', 'overdraft_policy', 'overdraft_limit'] as const;
