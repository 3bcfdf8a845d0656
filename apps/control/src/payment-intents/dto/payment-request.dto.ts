import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsObject, IsOptional, IsString, IsUUID, Length, Max, Min } from 'class-validator';
import { Nullable } from '@bursar/service-kit';

/** Fields a payment simulation and a payment authorization share. */
export class PaymentSimulationDto {
  @ApiProperty()
  @IsUUID()
  budget_id: string;

  @ApiProperty({ minimum: 1 })
  @IsInt()
  @Min(1)
  @Max(Number.MAX_SAFE_INTEGER)
  amount_cents: number;

  @Nullable({ type: String, description: 'Evaluated as the resource of payment.create' })
  @IsString()
  @Length(1, 500)
  counterparty?: string | null;

  @Nullable({ type: String, format: 'uuid', description: 'A spend token this agent minted against the same budget' })
  @IsUUID()
  spend_token_id?: string | null;

  @Nullable({ type: String })
  @IsString()
  @Length(1, 200)
  trace_id?: string | null;

  @ApiPropertyOptional({ description: 'Evaluated like action metadata' })
  @IsOptional()
  @IsObject()
  metadata?: Record<string, unknown>;
}

export class PaymentRequestDto extends PaymentSimulationDto {
  @ApiProperty({ description: 'Unique per agent; missing answers 400. A replay returns the original intent and decision.' })
  @IsString()
  @Length(1, 255)
  idempotency_key: string;

  @ApiPropertyOptional({ description: 'Provenance only, never evaluated; echoed with the decision merged in under `decision`' })
  @IsOptional()
  @IsObject()
  decision_context?: Record<string, unknown>;
}
