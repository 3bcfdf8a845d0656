import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { PageQuery } from '../../common/pagination';
import { DELIVERY_STATUSES, DeliveryStatus } from '../webhook-delivery.record';

export class ListDeliveriesQuery extends PageQuery {
  @ApiPropertyOptional({ enum: DELIVERY_STATUSES, description: '`failed`: every attempt failed (dead)' })
  @IsOptional()
  @IsIn(DELIVERY_STATUSES)
  status?: DeliveryStatus;
}
