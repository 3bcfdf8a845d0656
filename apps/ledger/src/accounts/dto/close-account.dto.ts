import { ApiProperty } from '@nestjs/swagger';
import { IsString, Length } from 'class-validator';

export class CloseAccountDto {
  @ApiProperty({ description: 'Free label of who closed the account' })
  @IsString()
  @Length(1, 200)
  closed_by_label: string;
}
