import { Injectable } from '@nestjs/common';
import { isUUID } from 'class-validator';
import { LedgerErrors } from '../common/ledger-errors';
import { LedgerScope, TenantScope } from '../common/mode';
import { LedgerEntity } from './ledger.entity';
import { ListPage } from '../common/envelope.interceptor';
import { PageRequest, Pagination } from '../common/pagination';
import { assertPreconditions, Preconditions } from '../common/preconditions';
import { ledgerValidators } from './ledger.presenter';
import { LedgerChanges, LedgerFilter, LedgersRepository, NewLedger } from './ledgers.repository';

/** Where a request said which ledger it wants (reference s.1 "Ledger selection"). */
export interface LedgerChoice {
  tenant: TenantScope;
  /** The token's `ledger_id` claim (a pinned client); beats everything else. */
  claim: string | null;
  header?: string;
  /** `ledger_id` query parameter. */
  param?: string;
}

/** Most ledger ids remembered by scopeOf before it starts over. */
const KNOWN_LEDGERS_MAX = 10_000;

@Injectable()
export class LedgersService {
  /**
   * Ledgers found by id, by tenant and id. A ledger's organization and mode never change and
   * ledgers are never deleted, so a found one stays valid: the hot path skips this lookup.
   */
  private readonly known = new Map<string, LedgerScope>();

  constructor(
    private readonly ledgers: LedgersRepository,
    private readonly pagination: Pagination,
  ) {}

  list<U>(
    scope: TenantScope,
    filter: LedgerFilter,
    query: PageRequest,
    present: (row: LedgerEntity) => U,
  ): Promise<ListPage<U>> {
    return this.ledgers.page(scope, filter, this.pagination, query, present);
  }

  /** Applies `changes` if the caller's preconditions hold against the row as it is now. */
  async update(scope: TenantScope, id: string, changes: LedgerChanges, pre: Preconditions): Promise<LedgerEntity> {
    const updated = await this.ledgers.update(scope, id, (current) => {
      assertPreconditions(pre, ledgerValidators(current));
      return changes;
    });
    if (!updated) throw LedgerErrors.error('not_found', { message: 'No such ledger' });
    return updated;
  }

  create(scope: TenantScope, ledger: NewLedger): Promise<LedgerEntity> {
    return this.ledgers.insert(scope, ledger);
  }

  /** A ledger of another organization or mode is reported absent, never forbidden. */
  async get(scope: TenantScope, id: string, param?: string): Promise<LedgerEntity> {
    const ledger = await this.ledgers.findById(scope, id);
    if (!ledger) throw LedgerErrors.error('not_found', { message: 'No such ledger', ...(param && { param }) });
    return ledger;
  }

  /** The request's ledger as a scope (select's rules); a ledger named by id is looked up once per process. */
  async scopeOf(choice: LedgerChoice): Promise<LedgerScope> {
    const id = choice.claim ?? choice.header ?? choice.param;
    const key = id === undefined ? null : `${choice.tenant.organizationId}:${choice.tenant.mode}:${id}`;
    const known = key === null ? undefined : this.known.get(key);
    if (known) return known;
    const ledger = await this.select(choice);
    const scope = { organizationId: ledger.organizationId, mode: ledger.mode, ledgerId: ledger.id };
    if (key !== null) {
      if (this.known.size >= KNOWN_LEDGERS_MAX) this.known.clear();
      this.known.set(key, scope);
    }
    return scope;
  }

  /** Resolves a request's ledger in the reference's order: claim, header, parameter, default. */
  async select(choice: LedgerChoice): Promise<LedgerEntity> {
    const [id, param] =
      choice.claim !== null
        ? [choice.claim, undefined]
        : choice.header !== undefined
          ? [choice.header, 'X-Ledger-Id']
          : [choice.param, 'ledger_id'];
    if (id === undefined) {
      const fallback = await this.ledgers.findDefault(choice.tenant);
      if (!fallback) {
        throw LedgerErrors.error('not_found', {
          message: `The organization has no ${choice.tenant.mode}-mode ledger`,
          hint: 'Create one with POST /ledger/v1/ledgers, or name one with the X-Ledger-Id header',
        });
      }
      return fallback;
    }
    if (param && !isUUID(id)) {
      throw LedgerErrors.error('invalid_request', { message: `${param} must be a ledger id (uuid)`, param });
    }
    return this.get(choice.tenant, id, param);
  }
}
