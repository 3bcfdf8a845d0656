import { ArrayNotEmpty, IsArray, IsIn, IsString, IsUUID, Length } from 'class-validator';
import { Mode, MODES } from '../../common/mode';
import { ClientScope, CLIENT_SCOPES } from '../oauth-scopes';

export class CreateOauthClientDto {
  @IsString()
  @Length(1, 200)
  name: string;

  @IsIn(MODES)
  mode: Mode;

  @IsArray()
  @ArrayNotEmpty()
  @IsIn(CLIENT_SCOPES, { each: true })
  scopes: ClientScope[];

  @IsUUID()
  ledger_id: string;
}
