import { ApiProperty } from '@nestjs/swagger';
import { IsString, MaxLength } from 'class-validator';
import { DescriptionField, EnabledEventsField } from './webhook-endpoint-fields';
import { HeaderBrandField } from '@bursar/queue';

export class CreateWebhookEndpointDto {
  @ApiProperty({ description: 'Where deliveries are POSTed; must resolve to a public address', example: 'https://example.com/hooks' })
  @IsString()
  @MaxLength(2048)
  url: string;

  @DescriptionField()
  description?: string;

  @EnabledEventsField()
  enabled_events?: string[];

  @HeaderBrandField()
  header_brand?: string | null;
}
