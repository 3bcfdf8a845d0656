import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Length } from 'class-validator';
import { FUND_CLASSIFICATIONS, FundClassification } from '../account-kinds';
import { OptionalMetadata } from '../../common/optional-metadata.decorator';

/** Fields an account template and an account share: fund classification, custody pair, metadata. */
export class ClassificationFieldsDto {
  @ApiPropertyOptional({ enum: FUND_CLASSIFICATIONS, description: "Accounts default to neutral, or to their template's" })
  @IsOptional()
  @IsIn(FUND_CLASSIFICATIONS)
  fund_classification?: FundClassification;

  @ApiPropertyOptional({ description: 'Custodian of the funds; custody_provider and custody_external_id go together' })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  custody_provider?: string;

  @ApiPropertyOptional({ description: "The custodian's identifier of the holding" })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  custody_external_id?: string;

  @OptionalMetadata()
  metadata?: Record<string, unknown>;
}
