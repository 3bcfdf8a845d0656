import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Length, Matches } from 'class-validator';

export class CreateWorkspaceDto {
  @ApiProperty({ minLength: 1, maxLength: 200 })
  @IsString()
  @Length(1, 200)
  name: string;

  /** Derived from the name when absent. */
  @ApiPropertyOptional({ pattern: '^[a-z0-9]+(-[a-z0-9]+)*$', maxLength: 64, description: 'Derived from the name when absent' })
  @IsOptional()
  @IsString()
  @Length(1, 64)
  @Matches(/^[a-z0-9]+(-[a-z0-9]+)*$/, { message: 'slug must be lowercase letters and digits joined by single dashes' })
  slug?: string;
}
