import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { isUUID } from 'class-validator';
import { DataSource, EntityManager } from 'typeorm';
import { SecretBox } from '@bursar/crypto';
import { LedgerSettings } from '../config/ledger.settings';
import { ListPage } from '../common/envelope.interceptor';
import { LedgerErrors } from '../common/ledger-errors';
import { LedgerScope } from '../common/mode';
import { ListOrder, PageRequest, Pagination } from '../common/pagination';
import { assertPreconditions, Preconditions, Validators, validatorsOf } from '../common/preconditions';
import { inboundPath, openInboundToken } from './inbound-credentials';
import { presentSource, PresentedSource, SourceRecord } from './source.record';
import { SourceErrors } from './source-errors';
import { SourceSettings, SourcesRepository } from './sources.repository';

const NEWEST_FIRST: ListOrder = {
  list: 'sources',
  sortColumn: 'created_at',
  sortType: 'timestamptz',
  idColumn: 'id',
  idType: 'uuid',
  direction: 'DESC',
};

/** Source names are case-insensitive: stored lowercased, surrounding blanks dropped. */
export function normalizeSourceName(name: string): string {
  return name.trim().toLowerCase();
}

@Injectable()
export class SourcesService {
  private readonly box: SecretBox;

  constructor(
    private readonly sources: SourcesRepository,
    private readonly pagination: Pagination,
    @Inject(LedgerSettings) private readonly settings: Pick<LedgerSettings, 'rootKeys' | 'publicUrl'>,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {
    this.box = settings.rootKeys.sealedRows();
  }

  /**
   * 201 for a new name and for one an inline run made implicitly (promoted: it becomes explicit
   * with these settings); 409 `already_exists` when an explicit source holds the name.
   */
  async create(scope: LedgerScope, name: string, settings: SourceSettings): Promise<SourceRecord> {
    const normalized = normalizeSourceName(name);
    if (normalized.length === 0) throw LedgerErrors.error('invalid_request', { message: 'name must not be blank', param: 'name' });
    const result = await this.sources.createOrPromote(scope, normalized, settings);
    if (!result) throw SourceErrors.error('already_exists', { message: `A source named ${normalized} exists`, param: 'name' });
    return result.source;
  }

  /**
   * The source of that name, created with `implicit: true` and default settings when absent;
   * race-safe, and usable inside the caller's transaction (`manager`).
   */
  async findOrCreateImplicit(scope: LedgerScope, name: string, manager: EntityManager = this.dataSource.manager): Promise<SourceRecord> {
    const normalized = normalizeSourceName(name);
    // Inline runs name their source in the `source` field.
    if (normalized.length === 0 || normalized.length > 200) {
      throw LedgerErrors.error('invalid_request', { message: 'source must be a name of 1 to 200 characters', param: 'source' });
    }
    return this.sources.findOrCreateImplicit(manager, scope, normalized);
  }

  /** The source of this ledger, else 404 `not_found` (also for ids of other ledgers). */
  async get(scope: LedgerScope, id: string, manager?: EntityManager, lock = false): Promise<SourceRecord> {
    const source = isUUID(id) ? await this.sources.find(scope, id, manager, lock) : null;
    if (!source) throw LedgerErrors.error('not_found', { message: `No source ${id}` });
    return source;
  }

  /** Applies `settings` if the caller's preconditions (If-Match, If-Unmodified-Since) hold against the locked row. */
  async update(scope: LedgerScope, id: string, settings: SourceSettings, pre: Preconditions = {}): Promise<SourceRecord> {
    return this.dataSource.transaction(async (manager) => {
      const current = await this.get(scope, id, manager, true);
      assertPreconditions(pre, this.validators(current));
      const updated = await this.sources.update(manager, scope, current.id, settings);
      if (!updated) throw LedgerErrors.error('not_found', { message: `No source ${id}` });
      return updated;
    });
  }

  /** ETag and Last-Modified of the source as the API shows it. */
  validators(source: SourceRecord): Validators {
    return validatorsOf(this.present(source), source.updatedAt);
  }

  async list(scope: LedgerScope, page: PageRequest): Promise<ListPage<PresentedSource>> {
    const after = page.cursor === undefined ? undefined : this.pagination.decode(NEWEST_FIRST, scope, page.cursor);
    const rows = await this.sources.list(scope, after, page.limit + 1);
    const total = page.include_total === 'true' ? await this.sources.count(scope) : undefined;
    return this.pagination.pageOf(rows, NEWEST_FIRST, scope, page, (source) => this.present(source), total);
  }

  /** The wire shape, with the push URL when the hosted inbound endpoint is on. */
  present(source: SourceRecord): PresentedSource {
    return presentSource(source, this.inboundUrl(source));
  }

  inboundUrl(source: SourceRecord): string | null {
    if (!source.inboundEnabled || !source.inboundTokenSealed) return null;
    return `${this.settings.publicUrl}${inboundPath(openInboundToken(this.box, source.id, source.inboundTokenSealed))}`;
  }
}
