import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsString, Length } from 'class-validator';
import { Mode, MODES } from '../../common/mode';
import { OptionalMetadata } from '../../common/optional-metadata.decorator';
import { OptionalText } from '@bursar/service-kit';

export class CreateLedgerDto {
  @ApiProperty({ minLength: 1, maxLength: 200 })
  @IsString()
  @Length(1, 200)
  name: string;

  @ApiProperty({ enum: MODES, description: "Must be the token's mode" })
  @IsIn(MODES)
  mode: Mode;

  @OptionalText(0, 1000, { maxLength: 1000 })
  description?: string;

  @OptionalMetadata()
  metadata?: Record<string, unknown>;

}
