import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { Request } from 'express';
import { map, Observable } from 'rxjs';

/** What a list route returns; the interceptor turns it into the list envelope. */
export class ListPage<T> {
  constructor(
    readonly data: T[],
    readonly hasMore = false,
    readonly nextCursor: string | null = null,
    /** Only when the caller asked for it. */
    readonly total?: number,
  ) {}

  /** A list that matches nothing, with `total: 0` when it was asked for. */
  static empty<T>(query: { include_total?: 'true' | 'false' }): ListPage<T> {
    return new ListPage<T>([], false, null, query.include_total === 'true' ? 0 : undefined);
  }
}

/**
 * Wraps what a ledger route returns: a resource becomes `{data, livemode, request_id}`, a ListPage
 * `{object: "list", data, has_more, next_cursor, [total], livemode, request_id}`.
 */
@Injectable()
export class EnvelopeInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = context.switchToHttp().getRequest<Request>();
    return next.handle().pipe(
      map((body: unknown) => {
        const meta = { livemode: req.livemode ?? false, request_id: String(req.id) };
        if (!(body instanceof ListPage)) return { data: body, ...meta };
        return {
          object: 'list',
          data: body.data,
          has_more: body.hasMore,
          next_cursor: body.nextCursor,
          ...(body.total !== undefined && { total: body.total }),
          ...meta,
        };
      }),
    );
  }
}
