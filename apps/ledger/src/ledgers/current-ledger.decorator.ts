import { createParamDecorator, ExecutionContext, Injectable, PipeTransform } from '@nestjs/common';
import type { Request } from 'express';
import { grantOf } from '../auth/require-scope.decorator';
import { LedgerScope } from '../common/mode';
import { LedgerChoice, LedgersService } from './ledgers.service';

export const LEDGER_ID_HEADER = 'X-Ledger-Id';

const LedgerChoiceOf = createParamDecorator((_: unknown, ctx: ExecutionContext): LedgerChoice => {
  const req = ctx.switchToHttp().getRequest<Request>();
  const grant = grantOf(ctx);
  const param = req.query?.ledger_id;
  return {
    tenant: { organizationId: grant.organizationId, mode: grant.mode },
    claim: grant.ledgerId,
    header: req.headers['x-ledger-id'] as string | undefined,
    param: param === undefined ? undefined : String(param),
  };
});

/** Resolves the raw choice against the database; a pipe so it can use injected services. */
@Injectable()
export class LedgerSelectionPipe implements PipeTransform<LedgerChoice, Promise<LedgerScope>> {
  constructor(private readonly ledgers: LedgersService) {}

  transform(choice: LedgerChoice): Promise<LedgerScope> {
    return this.ledgers.scopeOf(choice);
  }
}

/**
 * The ledger a request works on, as a LedgerScope (reference s.1 "Ledger selection"): the token's
 * `ledger_id` claim, else the `X-Ledger-Id` header, else a `ledger_id` query parameter, else the
 * organization's oldest unarchived ledger of the token's mode. A ledger of another organization or
 * mode, or none at all, is 404 `not_found`; a malformed id is 422 `invalid_request`. Use it on any
 * route behind @RequireScope:
 *
 *   @Get() @RequireScope('ledger:read') list(@CurrentLedger() ledger: LedgerScope) { ... }
 *
 * Query DTOs of such routes extend PageQuery or LedgerSelectionQuery so `ledger_id` passes validation.
 */
export const CurrentLedger = () => LedgerChoiceOf(undefined, LedgerSelectionPipe);

