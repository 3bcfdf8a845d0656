import { OptionalText } from '@bursar/service-kit';

/** Only the label can change; scopes, mode and ledger are fixed (create another client instead). */
export class UpdateOauthClientDto {
  @OptionalText(1, 200, { minLength: 1, maxLength: 200 })
  name?: string;
}
