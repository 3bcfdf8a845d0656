import { Mode, MODES } from '../../common/mode';
import { PageQuery } from '../../common/pagination';
import { OptionalIn } from '@bursar/service-kit';

export class ListOauthClientsQuery extends PageQuery {
  @OptionalIn(MODES, { description: "Only the token's mode has clients; the other mode lists nothing" })
  mode?: Mode;
}
