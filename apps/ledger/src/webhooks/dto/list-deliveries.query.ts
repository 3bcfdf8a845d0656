import { DELIVERY_STATUSES, DeliveryStatus } from '@bursar/queue';
import { PageQuery } from '../../common/pagination';
import { OptionalIn } from '@bursar/service-kit';

export class ListDeliveriesQuery extends PageQuery {
  @OptionalIn(DELIVERY_STATUSES, { description: '`failed`: every attempt failed (dead)' })
  status?: DeliveryStatus;
}
