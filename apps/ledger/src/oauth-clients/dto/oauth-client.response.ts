import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { MODES } from '../../common/mode';
import { CLIENT_SCOPES } from '../oauth-scopes';

/** Wire shape of an OAuth client (documentation only; presentOauthClient builds it). */
export class OauthClientResponse {
  @ApiProperty({ enum: ['oauth_client'] }) object: 'oauth_client';
  @ApiProperty({ description: '`client_…`; same value as client_id' }) id: string;
  @ApiProperty() client_id: string;
  @ApiProperty() name: string;
  @ApiProperty({ enum: MODES }) mode: string;
  @ApiProperty({ enum: CLIENT_SCOPES, isArray: true }) scopes: string[];
  @ApiProperty({ type: 'string', format: 'uuid', nullable: true }) ledger_id: string | null;
  @ApiProperty() active: boolean;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true }) last_used_at: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiPropertyOptional({ description: 'Only on create and rotate_secret: shown once' }) client_secret?: string;
  @ApiPropertyOptional() client_secret_note?: string;
  @ApiPropertyOptional({ type: 'string', format: 'date-time', nullable: true, description: 'Only on rotate_secret' })
  previous_secret_expires_at?: string | null;
}

export class DeletedOauthClientResponse {
  @ApiProperty({ enum: ['oauth_client'] }) object: 'oauth_client';
  @ApiProperty() id: string;
  @ApiProperty({ enum: [true] }) deleted: true;
}
