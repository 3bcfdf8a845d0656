import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsObject, IsOptional, Matches } from 'class-validator';
import { EVENT_PATTERN } from './webhook-endpoint-fields';

export class TestSendDto {
  @ApiPropertyOptional({ default: 'webhook.test', description: 'Type the synthetic event carries' })
  @IsOptional()
  @Matches(EVENT_PATTERN, { message: 'event_type must be an event type' })
  event_type?: string;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, default: { ping: true, test: true } })
  @IsOptional()
  @IsObject()
  payload?: Record<string, unknown>;
}
