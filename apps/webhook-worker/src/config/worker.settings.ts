import { IsInt, Min } from 'class-validator';
import { CommonSettings, IsPort, ToInt } from '@bursar/service-kit';

/** Environment of the webhook worker, validated once at boot. */
export class WorkerSettings extends CommonSettings {
  /** Serves health and metrics only. */
  @IsPort()
  WORKER_PORT = 3002;

  /** Deliveries one replica runs at once. */
  @ToInt()
  @IsInt({ message: 'WORKER_CONCURRENCY must be an integer' })
  @Min(1, { message: 'WORKER_CONCURRENCY must be at least 1' })
  WORKER_CONCURRENCY = 50;
}
