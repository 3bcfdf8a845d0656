import { FactoryProvider, InjectionToken } from '@nestjs/common';
import type { Logger } from 'pino';
import { PolledWorker } from '@bursar/queue';
import { LOGGER } from '@bursar/service-kit';
import { ControlSettings } from '../config/control.settings';

/** A round that drains what it can by itself, so the poller always waits its interval after one. */
class RoundWorker extends PolledWorker {
  constructor(
    name: string,
    private readonly everyMs: number,
    private readonly round: () => Promise<unknown>,
    logger: Logger,
  ) {
    super(name, logger);
  }

  protected get intervalMs(): number {
    return this.everyMs;
  }

  protected async step(): Promise<number> {
    await this.round();
    return 0;
  }
}

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
