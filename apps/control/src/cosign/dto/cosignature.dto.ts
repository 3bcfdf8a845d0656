import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Length } from 'class-validator';

export class VerifyCosignatureDto {
  @ApiPropertyOptional({ description: 'The cosignature JWT; may instead be sent as Authorization: Bearer <jwt>. Empty counts as missing.' })
  @IsOptional()
  @IsString()
  authorization?: string;
}

export class ConsumeCosignatureDto extends VerifyCosignatureDto {
  @ApiPropertyOptional({ description: 'Label recorded on the consumption (the executor, say)' })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  consumed_by?: string;
}
