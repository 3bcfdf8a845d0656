import { OptionalUuid } from '@bursar/service-kit';
import { ListQueryDto } from '../../common/pagination';

export class ListSpendTokensDto extends ListQueryDto {
  @OptionalUuid()
  budget_id?: string;

  @OptionalUuid()
  agent_id?: string;
}
