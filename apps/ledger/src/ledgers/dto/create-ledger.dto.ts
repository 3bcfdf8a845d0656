import { ApiProperty } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import { Mode, MODES } from '../../common/mode';
import { OptionalMetadata } from '../../common/optional-metadata.decorator';
import { OptionalText, RequiredText } from '@bursar/service-kit';

export class CreateLedgerDto {
  @RequiredText(1, 200, { minLength: 1, maxLength: 200 })
  name: string;

  @ApiProperty({ enum: MODES, description: "Must be the token's mode" })
  @IsIn(MODES)
  mode: Mode;

  @OptionalText(0, 1000, { maxLength: 1000 })
  description?: string;

  @OptionalMetadata()
  metadata?: Record<string, unknown>;

}
