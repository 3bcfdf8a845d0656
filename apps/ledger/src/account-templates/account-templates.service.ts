import { Injectable } from '@nestjs/common';
import { ListPage } from '../common/envelope.interceptor';
import { LedgerErrors } from '../common/ledger-errors';
import { LedgerScope } from '../common/mode';
import { PageQuery, Pagination } from '../common/pagination';
import { normalizeCurrency } from '../accounts/currencies';
import { AccountTemplateErrors } from './account-template-errors';
import { AccountTemplateEntity } from './account-template.entity';
import { presentAccountTemplate } from './account-template.presenter';
import { AccountTemplatesRepository } from './account-templates.repository';
import { CreateAccountTemplateDto } from './dto/create-account-template.dto';

const ORDER = {
  list: 'account_templates',
  sortColumn: 't.created_at',
  sortType: 'timestamptz',
  idColumn: 't.name',
  idType: 'text',
  direction: 'DESC',
} as const;

@Injectable()
export class AccountTemplatesService {
  constructor(
    private readonly templates: AccountTemplatesRepository,
    private readonly pagination: Pagination,
  ) {}

  async create(scope: LedgerScope, body: CreateAccountTemplateDto): Promise<AccountTemplateEntity> {
    if ((body.custody_provider === undefined) !== (body.custody_external_id === undefined)) {
      throw LedgerErrors.error('invalid_request', {
        message: 'custody_provider and custody_external_id go together',
        param: body.custody_provider === undefined ? 'custody_provider' : 'custody_external_id',
      });
    }
    const created = await this.templates.insert(scope, {
      name: body.name,
      accountingType: body.accounting_type,
      allowedCurrencies: [...new Set((body.allowed_currencies ?? []).map(normalizeCurrency))],
      balanceNonNegative: body.balance_non_negative ?? false,
      description: body.description ?? null,
      fundClassification: body.fund_classification ?? null,
      custodyProvider: body.custody_provider ?? null,
      custodyExternalId: body.custody_external_id ?? null,
      metadata: body.metadata ?? {},
    });
    if (!created) {
      throw AccountTemplateErrors.error('already_exists', {
        param: 'name',
        hint: 'Templates are immutable: create one under a new name to change it',
      });
    }
    return created;
  }

  async get(scope: LedgerScope, name: string): Promise<AccountTemplateEntity> {
    const template = await this.templates.findByName(scope, name);
    if (!template) throw LedgerErrors.error('not_found', { message: `No account template named ${name}` });
    return template;
  }

  /** The template an account names, or 422 `account_template_unknown`. */
  async forAccount(scope: LedgerScope, name: string): Promise<AccountTemplateEntity> {
    const template = await this.templates.findByName(scope, name);
    if (!template) throw AccountTemplateErrors.error('account_template_unknown', { param: 'template' });
    return template;
  }

  list(scope: LedgerScope, query: PageQuery): Promise<ListPage<ReturnType<typeof presentAccountTemplate>>> {
    return this.pagination.page(this.templates.listQuery(scope), ORDER, scope, query, presentAccountTemplate);
  }
}
