import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';
import { OptionalText } from '@bursar/service-kit';

export class VerifyCosignatureDto {
  @ApiPropertyOptional({ description: 'The cosignature JWT; may instead be sent as Authorization: Bearer <jwt>. Empty counts as missing.' })
  @IsOptional()
  @IsString()
  authorization?: string;
}

export class ConsumeCosignatureDto extends VerifyCosignatureDto {
  @OptionalText(1, 200, { description: 'Label recorded on the consumption (the executor, say)' })
  consumed_by?: string;
}
