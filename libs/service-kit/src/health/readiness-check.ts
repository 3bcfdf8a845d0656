/** A dependency the process cannot serve without; `probe` rejects when it is unreachable. */
export interface ReadinessCheck {
  name: string;
  probe(): Promise<void>;
}

export const READINESS_CHECKS = Symbol('READINESS_CHECKS');

/** Rejects after `ms` so a hung dependency reads as down instead of hanging the probe. */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    promise,
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
