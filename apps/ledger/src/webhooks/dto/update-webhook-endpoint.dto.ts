import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsOptional, IsString, MaxLength } from 'class-validator';
import { DescriptionField, EnabledEventsField } from './webhook-endpoint-fields';
import { HeaderBrandField } from '@bursar/queue';

export class UpdateWebhookEndpointDto {
  @ApiPropertyOptional({ description: 'New delivery URL; checked like on creation' })
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  url?: string;

  @DescriptionField()
  description?: string;

  @EnabledEventsField()
  enabled_events?: string[];

  @ApiPropertyOptional({ description: 'false stops new deliveries (and test sends) until set back to true' })
  @IsOptional()
  @IsBoolean()
  active?: boolean;

  @HeaderBrandField()
  header_brand?: string | null;
}
