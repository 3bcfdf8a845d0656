import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { AccountTemplateEntity } from '../account-templates/account-template.entity';
import { AccountTemplatesService } from '../account-templates/account-templates.service';
import { balanceFigures } from '../books/balance-figures';
import { BalancesRepository } from '../balances/balances.repository';
import { ListPage } from '../common/envelope.interceptor';
import { LedgerErrors } from '../common/ledger-errors';
import { LedgerScope } from '../common/mode';
import { Pagination } from '../common/pagination';
import { assertPreconditions, Preconditions, validatorsOf } from '../common/preconditions';
import { EventsService } from '../events/events.service';
import { AccountErrors } from './account-errors';
import { AccountEntity } from './account.entity';
import { presentAccount, PresentedAccount } from './account.presenter';
import { AccountChanges, AccountsRepository, NewAccount } from './accounts.repository';
import { normalizeCurrency } from './currencies';
import { CreateAccountDto } from './dto/create-account.dto';
import { ListAccountsQuery } from './dto/list-accounts.query';
import { FIXED_ACCOUNT_FIELDS, UpdateAccountDto } from './dto/update-account.dto';

const ORDER = {
  list: 'accounts',
  sortColumn: 'a.created_at',
  sortType: 'timestamptz',
  idColumn: 'a.id',
  idType: 'text',
  direction: 'DESC',
} as const;

function invalid(param: string, message: string): never {
  throw LedgerErrors.error('invalid_request', { param, message, details: { fields: { [param]: [message] } } });
}

/** Both fields of a pair, or neither. */
function assertPaired(a: [string, unknown], b: [string, unknown]): void {
  const [aSet, bSet] = [a[1] !== undefined && a[1] !== null, b[1] !== undefined && b[1] !== null];
  if (aSet !== bSet) invalid(aSet ? b[0] : a[0], `${a[0]} and ${b[0]} go together`);
}

/** A template's type, currencies and defaults applied to the request, refused where they disagree. */
function applyTemplate(body: CreateAccountDto, currency: string, template: AccountTemplateEntity | null) {
  if (!template) return { type: body.type, fundClassification: body.fund_classification, policy: body.overdraft_policy };
  if (body.type !== undefined && body.type !== template.accountingType) {
    invalid('type', `template ${template.name} makes ${template.accountingType} accounts`);
  }
  if (template.allowedCurrencies.length > 0 && !template.allowedCurrencies.includes(currency)) {
    invalid('currency', `template ${template.name} allows only ${template.allowedCurrencies.join(', ')}`);
  }
  if (template.balanceNonNegative && body.overdraft_policy === 'allowed') {
    invalid('overdraft_policy', `template ${template.name} keeps balances non-negative: overdraft_policy must be none`);
  }
  return {
    type: template.accountingType,
    fundClassification: body.fund_classification ?? template.fundClassification ?? undefined,
    policy: body.overdraft_policy ?? (template.balanceNonNegative ? ('none' as const) : undefined),
  };
}

@Injectable()
export class AccountsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly accounts: AccountsRepository,
    private readonly balances: BalancesRepository,
    private readonly templates: AccountTemplatesService,
    private readonly events: EventsService,
    private readonly pagination: Pagination,
  ) {}

  async create(scope: LedgerScope, body: CreateAccountDto): Promise<AccountEntity> {
    const account = await this.prepare(scope, body);
    return this.dataSource.transaction(async (manager) => {
      const created = await this.insert(manager, scope, account);
      if (!created) throw AccountErrors.error('already_exists', { param: 'id' });
      return created;
    });
  }

  /** The row `body` describes, its template applied and checked (422 where they disagree); nothing written. */
  async prepare(scope: LedgerScope, body: CreateAccountDto): Promise<NewAccount> {
    const currency = normalizeCurrency(body.currency);
    const template = body.template === undefined ? null : await this.templates.forAccount(scope, body.template);
    const applied = applyTemplate(body, currency, template);
    if (!applied.type) invalid('type', 'type is required (or name a template that supplies it)');
    assertPaired(['custody_provider', body.custody_provider], ['custody_external_id', body.custody_external_id]);
    assertPaired(['ledgerable_type', body.ledgerable_type], ['ledgerable_id', body.ledgerable_id]);
    if (body.parent_id !== undefined && !(await this.accounts.findById(scope, body.parent_id))) {
      invalid('parent_id', `no account ${body.parent_id} in this ledger`);
    }
    const inheritCustody = body.custody_provider === undefined && template?.custodyProvider;
    return {
      id: body.id,
      name: body.name,
      type: applied.type,
      currency,
      overdraftPolicy: applied.policy ?? 'allowed',
      overdraftLimit: String(body.overdraft_limit ?? '0').replace(/^0+(?=\d)/, ''),
      accountKind: body.account_kind ?? 'standard',
      counterpartyRef: body.counterparty_ref ?? null,
      fundClassification: applied.fundClassification ?? 'neutral',
      custodyProvider: inheritCustody ? template.custodyProvider : (body.custody_provider ?? null),
      custodyExternalId: inheritCustody ? template.custodyExternalId : (body.custody_external_id ?? null),
      template: template?.name ?? null,
      parentId: body.parent_id ?? null,
      ledgerableType: body.ledgerable_type ?? null,
      ledgerableId: body.ledgerable_id ?? null,
      metadata: body.metadata ?? {},
    };
  }

  /**
   * Inserts a prepared account with its balance row and `account.created` event inside the
   * caller's transaction; null when the id is taken (a concurrent insert of the same id waits for
   * the first to commit or roll back, then answers accordingly).
   */
  async insert(manager: EntityManager, scope: LedgerScope, account: NewAccount): Promise<AccountEntity | null> {
    const created = await this.accounts.insert(manager, scope, account);
    if (!created) return null;
    await this.balances.open(manager, scope, created.id, created.currency);
    await this.events.record(manager, scope, 'account.created', created.id, presentAccount(created));
    return created;
  }

  /** An account by id, or null (read with `manager` inside a transaction). */
  find(scope: LedgerScope, id: string, manager?: EntityManager): Promise<AccountEntity | null> {
    return this.accounts.findById(scope, id, manager);
  }

  async get(scope: LedgerScope, id: string): Promise<AccountEntity> {
    const account = await this.find(scope, id);
    if (!account) throw LedgerErrors.error('not_found', { message: `No account ${id}` });
    return account;
  }

  list(scope: LedgerScope, q: ListAccountsQuery): Promise<ListPage<PresentedAccount>> {
    const qb = this.accounts.listQuery(scope, {
      type: q.type,
      currency: q.currency === undefined ? undefined : normalizeCurrency(q.currency),
      kind: q.kind === 'reserve' ? 'restricted' : q.kind,
      counterpartyRef: q.counterparty_ref,
      fundClassification: q.fund_classification,
      custodyProvider: q.custody_provider,
      parentId: q.parent_id,
      ledgerableType: q.ledgerable_type,
      ledgerableId: q.ledgerable_id,
    });
    return this.pagination.page(qb, ORDER, scope, q, presentAccount);
  }

  async update(scope: LedgerScope, id: string, body: UpdateAccountDto, pre: Preconditions): Promise<AccountEntity> {
    return this.dataSource.transaction(async (manager) => {
      const account = await this.accounts.lock(manager, scope, id);
      if (!account) throw LedgerErrors.error('not_found', { message: `No account ${id}` });
      const current = presentAccount(account);
      assertPreconditions(pre, validatorsOf(current, account.updatedAt));
      for (const field of FIXED_ACCOUNT_FIELDS) {
        if (body[field] !== undefined && String(body[field]) !== String(current[field])) {
          throw LedgerErrors.error('immutable_field', {
            param: field,
            message: `${field} cannot change after creation`,
            hint: 'Create a new account instead',
          });
        }
      }
      const changes = this.changesOf(body);
      if (changes.parentId) await this.assertParent(scope, account, changes.parentId);
      assertPaired(['ledgerable_type', body.ledgerable_type ?? account.ledgerableType], ['ledgerable_id', body.ledgerable_id ?? account.ledgerableId]);
      if (Object.keys(changes).length === 0) return account;
      const updated = await this.accounts.update(manager, scope, id, changes);
      const reclassified =
        updated.fundClassification !== account.fundClassification ||
        updated.custodyProvider !== account.custodyProvider ||
        updated.custodyExternalId !== account.custodyExternalId;
      if (reclassified) {
        await this.events.record(manager, scope, 'account.classification_changed', id, {
          ...presentAccount(updated),
          previous: {
            fund_classification: account.fundClassification,
            custody_provider: account.custodyProvider,
            custody_external_id: account.custodyExternalId,
          },
        });
      }
      return updated;
    });
  }

  /** Closing needs zero posted and pending balances; closing a closed account returns it unchanged. */
  async close(scope: LedgerScope, id: string, label: string): Promise<AccountEntity> {
    return this.dataSource.transaction(async (manager) => {
      const account = await this.accounts.lock(manager, scope, id);
      if (!account) throw LedgerErrors.error('not_found', { message: `No account ${id}` });
      if (account.status === 'closed') return account;
      const balance = await this.balances.current(scope, id, manager);
      if (!balance) throw new Error(`account ${id} has no balance row`);
      const totals = balance.totals;
      const figures = balanceFigures(account.type, totals);
      if (figures.posted !== 0n || totals.pendingDebits !== 0n || totals.pendingCredits !== 0n) {
        throw AccountErrors.error('account_balance_nonzero', {
          hint: 'Move the balance out and commit or reverse pending postings first',
          details: { account: id, posted: figures.posted.toString(), pending: figures.pending.toString(), currency: account.currency },
        });
      }
      const closed = await this.accounts.update(manager, scope, id, {
        status: 'closed',
        closedAt: new Date(),
        closedByLabel: label,
      });
      await this.events.record(manager, scope, 'account.closed', id, presentAccount(closed));
      return closed;
    });
  }

  private changesOf(body: UpdateAccountDto): AccountChanges {
    const changes: AccountChanges = {};
    if (body.name !== undefined) changes.name = body.name;
    if (body.metadata !== undefined) changes.metadata = body.metadata;
    if (body.parent_id !== undefined) changes.parentId = body.parent_id;
    if (body.ledgerable_type !== undefined) changes.ledgerableType = body.ledgerable_type;
    if (body.ledgerable_id !== undefined) changes.ledgerableId = body.ledgerable_id;
    if (body.fund_classification !== undefined) changes.fundClassification = body.fund_classification;
    if (body.custody_provider !== undefined || body.custody_external_id !== undefined) {
      assertPaired(['custody_provider', body.custody_provider], ['custody_external_id', body.custody_external_id]);
      changes.custodyProvider = body.custody_provider ?? null;
      changes.custodyExternalId = body.custody_external_id ?? null;
    }
    return changes;
  }

  /** A parent must exist and must not be the account or one of its descendants. */
  private async assertParent(scope: LedgerScope, account: AccountEntity, parentId: string): Promise<void> {
    const descendants = await this.balances.tree(scope, account.id);
    if (descendants.some((d) => d.id === parentId)) invalid('parent_id', 'an account cannot descend from itself');
    if (!(await this.accounts.findById(scope, parentId))) invalid('parent_id', `no account ${parentId} in this ledger`);
  }
}
