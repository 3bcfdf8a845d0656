import { OptionalUuid } from '@bursar/service-kit';
import { ListQueryDto } from '../../common/pagination';

export class ListBudgetsDto extends ListQueryDto {
  @OptionalUuid()
  agent_id?: string;
}
