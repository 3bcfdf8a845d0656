import { Injectable } from '@nestjs/common';
import { LedgerErrors } from '../common/ledger-errors';
import { LedgerScope } from '../common/mode';
import { normalSide } from '../accounts/account-kinds';
import { presentPosting } from '../postings/posting.presenter';
import { BalanceFigures, balanceFigures, ZERO_TOTALS } from '../books/balance-figures';
import { presentBalance } from './balance.presenter';
import { BalancesRepository, SubjectTotals } from './balances.repository';

function notFound(id: string): never {
  throw LedgerErrors.error('not_found', { message: `No account ${id}` });
}

function sumFigures(list: BalanceFigures[]): BalanceFigures {
  return list.reduce(
    (acc, f) => ({ posted: acc.posted + f.posted, pending: acc.pending + f.pending, available: acc.available + f.available }),
    { posted: 0n, pending: 0n, available: 0n },
  );
}

function openingOf(currency: string, f: BalanceFigures) {
  return { posted: f.posted.toString(), pending: f.pending.toString(), currency };
}

@Injectable()
export class BalancesService {
  constructor(private readonly balances: BalancesRepository) {}

  private async subject(scope: LedgerScope, id: string): Promise<SubjectTotals> {
    return (await this.balances.current(scope, id)) ?? notFound(id);
  }

  /** Current balance, or the balance by value_date at `at`. */
  async balance(scope: LedgerScope, id: string, at?: Date) {
    const subject = await this.subject(scope, id);
    const totals = at ? await this.balances.asOf(scope, subject, at) : subject.totals;
    return presentBalance(subject.id, subject.currency, balanceFigures(subject.type, totals), at);
  }

  /** The account plus every descendant; members must share one currency. */
  async categoryBalance(scope: LedgerScope, id: string) {
    const members = await this.balances.tree(scope, id);
    if (members.length === 0) notFound(id);
    const currencies = [...new Set(members.map((m) => m.currency))];
    if (currencies.length > 1) {
      throw LedgerErrors.error('invalid_request', {
        message: 'The category mixes currencies, so it has no single balance',
        details: { currencies },
      });
    }
    const figures = sumFigures(members.map((m) => balanceFigures(m.type, m.totals)));
    return {
      object: 'category_balance' as const,
      root: id,
      currency: currencies[0],
      member_count: members.length,
      members: members.map((m) => m.id),
      posted: figures.posted.toString(),
      pending: figures.pending.toString(),
      available: figures.available.toString(),
    };
  }

  /** Postings of `[from, to)` by value_date with the posted balance after each. */
  async statement(scope: LedgerScope, id: string, from: Date | null, to: Date, limit: number) {
    const subject = await this.subject(scope, id);
    const opening = balanceFigures(subject.type, from ? await this.balances.asOf(scope, subject, from, true) : ZERO_TOTALS);
    const closing = balanceFigures(subject.type, await this.balances.asOf(scope, subject, to, true));
    const rows = await this.balances.statementEntries(scope, id, from, to, limit + 1);
    const side = normalSide(subject.type);
    let running = opening.posted;
    const entries = rows.slice(0, limit).map((p) => {
      if (!p.pending) running += p.direction === side ? BigInt(p.amount) : -BigInt(p.amount);
      return presentPosting(p, undefined, running);
    });
    return {
      object: 'account_statement' as const,
      account: id,
      currency: subject.currency,
      period: { from: from?.toISOString() ?? null, to: to.toISOString() },
      opening_balance: openingOf(subject.currency, opening),
      closing_balance: openingOf(subject.currency, closing),
      entries,
      entry_count: entries.length,
      truncated: rows.length > limit,
    };
  }
}
