import { ApiProperty } from '@nestjs/swagger';
import { Equals } from 'class-validator';
import { OptionalText } from '@bursar/service-kit';

export const ANONYMIZE_CONFIRMATION = 'ANONYMIZE';

export class AnonymizeDto {
  @ApiProperty({ enum: [ANONYMIZE_CONFIRMATION], description: 'Must be exactly ANONYMIZE: the erasure cannot be undone' })
  @Equals(ANONYMIZE_CONFIRMATION, { message: `confirm must be exactly "${ANONYMIZE_CONFIRMATION}"` })
  confirm: string;

  @OptionalText(1, 1000, { maxLength: 1000, description: 'Why, kept with the anonymization record' })
  reason?: string;
}
