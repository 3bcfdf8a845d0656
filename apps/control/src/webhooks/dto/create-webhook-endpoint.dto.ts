import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { HeaderBrandField } from '@bursar/queue';
import { ENDPOINT_STATUSES, EndpointStatus } from '../webhook-endpoint.record';
import { CONTROL_WEBHOOK_EVENTS } from '../webhook-event-types';

export class CreateControlWebhookEndpointDto {
  @ApiProperty({ format: 'uri', description: 'Where deliveries are POSTed; must resolve to a public address (else 422)' })
  @IsString()
  @MaxLength(2048)
  url: string;

  @ApiPropertyOptional({ enum: ENDPOINT_STATUSES, default: 'active' })
  @IsOptional()
  @IsIn(ENDPOINT_STATUSES)
  status?: EndpointStatus;

  @ApiPropertyOptional({ enum: CONTROL_WEBHOOK_EVENTS, isArray: true, description: 'Empty or absent: every event; an unknown name is 422' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  enabled_events?: string[];

  @ApiPropertyOptional({ maxLength: 1000 })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  description?: string;

  @HeaderBrandField()
  header_brand?: string | null;
}
