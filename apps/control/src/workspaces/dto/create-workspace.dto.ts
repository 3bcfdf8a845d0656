import { ApiProperty } from '@nestjs/swagger';
import { IsString, Length, Matches } from 'class-validator';
import { OptionalText } from '@bursar/service-kit';

export class CreateWorkspaceDto {
  @ApiProperty({ minLength: 1, maxLength: 200 })
  @IsString()
  @Length(1, 200)
  name: string;

  /** Derived from the name when absent. */
  @OptionalText(1, 64, { pattern: '^[a-z0-9]+(-[a-z0-9]+)*$', maxLength: 64, description: 'Derived from the name when absent' })
  @Matches(/^[a-z0-9]+(-[a-z0-9]+)*$/, { message: 'slug must be lowercase letters and digits joined by single dashes' })
  slug?: string;
}
