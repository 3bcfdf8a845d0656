import { IsDateString, IsString, Length } from 'class-validator';
import { Mode, MODES } from '../../common/mode';
import { Nullable, OptionalIn, OptionalText } from '@bursar/service-kit';
import { OptionalMetadata } from '../../common/optional-metadata.decorator';

export class UpdateLedgerDto {
  @OptionalText(1, 200, { minLength: 1, maxLength: 200 })
  name?: string;

  @Nullable({ type: 'string', maxLength: 1000 })
  @IsString()
  @Length(0, 1000)
  description?: string | null;

  @OptionalMetadata('Replaces the metadata')
  metadata?: Record<string, unknown>;

  @Nullable({ type: 'string', format: 'date-time', description: 'A timestamp archives; null restores' })
  @IsDateString()
  archived_at?: string | null;

  @OptionalIn(MODES, { description: 'Fixed at creation: a different value is 409 immutable_field' })
  mode?: Mode;
}
