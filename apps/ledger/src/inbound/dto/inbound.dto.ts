import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsOptional } from 'class-validator';

export class EnableInboundDto {
  @ApiPropertyOptional({ default: false, description: 'Mint a new URL and secret even though the endpoint is on (the old ones stop working)' })
  @IsOptional()
  @IsBoolean()
  rotate?: boolean;
}

/** Wire shape of a source's hosted inbound endpoint. */
export class InboundEndpointResponse {
  @ApiProperty({ enum: ['inbound_endpoint'] }) object: 'inbound_endpoint';
  @ApiProperty({ format: 'uuid' }) source_id: string;
  @ApiProperty({ type: 'string', nullable: true, description: 'The secret path segment of the push URL; null once disabled' }) token: string | null;
  @ApiProperty({ type: 'string', nullable: true, description: 'POST pushes here' }) url: string | null;
  @ApiPropertyOptional({ description: 'HMAC signing secret; only in the response that minted it (first enable, rotate): store it now' })
  secret?: string;
  @ApiProperty() enabled: boolean;
}

/** `data` of a push. */
export class InboundResultResponse {
  @ApiProperty({ enum: ['inbound_result'] }) object: 'inbound_result';
  @ApiProperty({ description: 'Items in the body' }) received: number;
  @ApiProperty() created: number;
  @ApiProperty({ description: 'Already known (source, external_id): left unchanged' }) replayed: number;
  @ApiProperty({ description: 'Items refused (bad fields); the others landed' }) errors: number;
}
