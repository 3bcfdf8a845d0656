import { ApiProperty } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ArrayNotEmpty, IsArray, IsIn, IsUUID } from 'class-validator';
import { RequiredText } from '@bursar/service-kit';
import { Mode, MODES } from '../../common/mode';
import { ClientScope, CLIENT_SCOPES, fullScopeName } from '../oauth-scopes';

export class CreateOauthClientDto {
  @RequiredText(1, 200, { minLength: 1, maxLength: 200 })
  name: string;

  @ApiProperty({ enum: MODES, description: "Must be the calling token's mode" })
  @IsIn(MODES)
  mode: Mode;

  @ApiProperty({
    type: [String],
    example: ['ledger:read', 'ledger:write'],
    description: `Any of ${CLIENT_SCOPES.join(', ')}; the short forms without \`ledger:\` (read, write, period_close, clients:read, clients:write) are accepted too`,
  })
  @IsArray()
  @ArrayNotEmpty()
  @Transform(({ value }) => (Array.isArray(value) ? value.map(fullScopeName) : value))
  @IsIn(CLIENT_SCOPES, { each: true })
  scopes: ClientScope[];

  @ApiProperty({ format: 'uuid', description: 'Ledger the client is pinned to; same mode' })
  @IsUUID()
  ledger_id: string;
}
