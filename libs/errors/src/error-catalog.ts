import { ApiError, ApiErrorExtras } from './api-error';

/** What a hint may be written from: the raise's message and the field it names. */
export interface HintContext {
  message: string;
  param?: string;
}

export interface ErrorCodeSpec {
  status: number;
  /** Default human message; a raise may replace it with a more specific one. */
  message: string;
  /**
   * What the caller should do about it; a raise may replace it with a more specific one. A broad
   * code (a malformed request, say) writes it from the raise, so it still names the field.
   */
  hint: string | ((raise: HintContext) => string);
}

/** The hint a code gives for one raise. */
export function hintOf(spec: ErrorCodeSpec, raise: HintContext): string {
  return typeof spec.hint === 'function' ? spec.hint(raise) : spec.hint;
}

/**
 * The codes one module may raise, each bound to its status. Modules declare their own catalog;
 * nothing else decides a status for a coded error.
 */
export class ErrorCatalog<Code extends string> {
  constructor(readonly specs: Readonly<Record<Code, ErrorCodeSpec>>) {}

  error(code: Code, extras: ApiErrorExtras & { message?: string } = {}): ApiError {
    const { message = this.specs[code].message, ...rest } = extras;
    const spec = this.specs[code];
    return new ApiError(spec.status, code, message, { ...rest, hint: rest.hint ?? hintOf(spec, { message, param: rest.param }) });
  }

  codes(): Code[] {
    return Object.keys(this.specs) as Code[];
  }
}

/** Merges module catalogs into a service catalog, refusing a code declared twice with different statuses. */
export type CodeOf<C> = C extends ErrorCatalog<infer K> ? K : never;

export function mergeCatalogs<T extends ErrorCatalog<string>[]>(...catalogs: T): ErrorCatalog<CodeOf<T[number]>> {
  const merged: Record<string, ErrorCodeSpec> = {};
  for (const catalog of catalogs) {
    for (const code of catalog.codes()) {
      const existing = merged[code];
      if (existing && existing.status !== catalog.specs[code].status) {
        throw new Error(`error code ${code} declared with statuses ${existing.status} and ${catalog.specs[code].status}`);
      }
      merged[code] = catalog.specs[code];
    }
  }
  return new ErrorCatalog(merged as Record<CodeOf<T[number]>, ErrorCodeSpec>);
}
