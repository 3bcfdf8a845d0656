import { applyDecorators, SetMetadata, UseInterceptors } from '@nestjs/common';
import { ApiConflictResponse, ApiHeader, ApiOkResponse } from '@nestjs/swagger';
import { IDEMPOTENCY_HEADER, IDEMPOTENCY_OPTIONS, IdempotencyInterceptor, IdempotentOptions, REPLAYED_HEADER } from './idempotency.interceptor';

/**
 * Makes a write route idempotent (reference s.6). The key comes from the `Idempotency-Key` header
 * or, failing that, the body's `idempotency_key` (removed before validation, so DTOs need not
 * declare it); 1-255 characters of `[A-Za-z0-9_:.-]`. Keys are scoped to the organization, mode,
 * client and route. The first request claims the key in Postgres before the handler runs, so of
 * any number of parallel retries exactly one executes; while it runs the others get 409
 * `in_progress`; afterwards the same request replays the stored body (201 and 202 become 200) with
 * `Idempotent-Replayed: true`; the key with a different path, ledger, query or body is 409
 * `already_exists`. Failed requests keep nothing, so a corrected retry may reuse the key.
 *
 * Put it under @RequireScope (it reads the caller's grant). For transaction routes (L2):
 *
 *   @Post() @RequireScope('ledger:write') @Idempotent({ required: (req) => req.body?.dry_run !== true })
 *   create(@CurrentLedger() ledger: LedgerScope, @Body() body: CreateTransactionDto) { ... }
 *
 * `required` turns a missing key into 422 `missing_idempotency_key`. Handlers should return a
 * single resource (it is stored as JSON and replayed as is). To also survive a crash between the
 * write's commit and the key's completion, give the domain row a unique (ledger_id, key) column.
 *
 * `inWrite: true` (POST /transactions) skips the claim and completion transactions: the handler
 * stores the key, completed with its response, in its own write's database transaction
 * (IdempotencyService.completedKey with @PendingIdempotency()); a parallel retry waits on
 * that row and then replays, and a key found taken is answered by IdempotencyService.answerTaken.
 */
export function Idempotent(options: IdempotentOptions = {}) {
  return applyDecorators(
    SetMetadata(IDEMPOTENCY_OPTIONS, options),
    UseInterceptors(IdempotencyInterceptor),
    ApiHeader({
      name: IDEMPOTENCY_HEADER,
      required: options.required === true,
      description:
        'Retry-safe key (1-255 of A-Za-z0-9_:.-); the body field idempotency_key is an alternative, the header wins. ' +
        'Replays answer 200 with Idempotent-Replayed: true.',
    }),
    ApiOkResponse({ description: 'Replay of an earlier identical request', headers: { [REPLAYED_HEADER]: { schema: { type: 'string', enum: ['true'] } } } }),
    ApiConflictResponse({ description: '`in_progress`: the first request with this key is still running; `already_exists`: key used for another request' }),
  );
}
