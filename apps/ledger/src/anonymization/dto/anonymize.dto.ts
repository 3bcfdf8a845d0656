import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Equals, IsOptional, IsString, Length } from 'class-validator';

export const ANONYMIZE_CONFIRMATION = 'ANONYMIZE';

export class AnonymizeDto {
  @ApiProperty({ enum: [ANONYMIZE_CONFIRMATION], description: 'Must be exactly ANONYMIZE: the erasure cannot be undone' })
  @Equals(ANONYMIZE_CONFIRMATION, { message: `confirm must be exactly "${ANONYMIZE_CONFIRMATION}"` })
  confirm: string;

  @ApiPropertyOptional({ maxLength: 1000, description: 'Why, kept with the anonymization record' })
  @IsOptional()
  @IsString()
  @Length(1, 1000)
  reason?: string;
}
