import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsEmail, IsInt, IsOptional, Max, Min } from 'class-validator';
import { MAX_PACK_UNITS, PACK_UNIT_VOLUME_CENTS } from '../billing-plans';

export class PackDto {
  @ApiProperty({ minimum: 1, maximum: MAX_PACK_UNITS, description: `Each unit adds ${PACK_UNIT_VOLUME_CENTS} cents of gated volume to the current period` })
  @IsInt()
  @Min(1)
  @Max(MAX_PACK_UNITS)
  units: number;

  @ApiPropertyOptional({ description: "Billing email for a new customer; defaults to the identity token's email" })
  @IsOptional()
  @IsEmail()
  email?: string;
}
