import { FactoryProvider, InjectionToken } from '@nestjs/common';
import type { Logger } from 'pino';
import { RoundWorker } from '@bursar/queue';
import { LOGGER } from '@bursar/service-kit';
import { ControlSettings } from '../config/control.settings';

/**
 * The provider of one of control's background rounds: `round` on `dependency` every `interval` of
 * control's settings (0: off), from app start to shutdown. A failed round is logged and the next one
 * tries again.
 */
export function roundWorker<D>(name: string, interval: (settings: ControlSettings) => number, dependency: InjectionToken<D>, round: (d: D) => Promise<unknown>): FactoryProvider<RoundWorker> {
  return {
    provide: `${name}-worker`,
    inject: [dependency, ControlSettings, LOGGER],
    useFactory: (d: D, settings: ControlSettings, logger: Logger) => new RoundWorker(name, interval(settings), () => round(d), logger),
  };
}
