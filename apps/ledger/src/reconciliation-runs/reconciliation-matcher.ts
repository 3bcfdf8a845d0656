/**
 * The matching engine of a reconciliation run, in memory and free of I/O: given a run's open
 * external rows and the candidate postings, it decides which rows match which postings. Passes run
 * in order (external reference, exact amount in the window, then sums in the window when asked),
 * each row and each posting is used at most once, and every choice is deterministic (rows in
 * (time, id) order, ties broken by date distance then posting id), so the same input always gives
 * the same matches.
 */

export const MATCH_PASSES = ['external_ref', 'exact', 'sum_in_window'] as const;
export type MatchPass = (typeof MATCH_PASSES)[number];
export type RunStrategy = 'exact' | 'sum_in_window';

/** An open external row. `scopeAccount` is its account_id, else the source's default account, else null (any account). */
export interface MatchRow {
  id: string;
  externalId: string;
  amount: bigint;
  currency: string;
  scopeAccount: string | null;
  /** occurred_at in epoch milliseconds. */
  at: number;
  /** `rail\u001fkind\u001fvalue` of its reference triple, when it has one. */
  ref: string | null;
}

/** An unreconciled posted posting; `amount` is signed: debit positive, credit negative. */
export interface MatchPosting {
  id: string;
  accountId: string;
  amount: bigint;
  currency: string;
  /** value_date in epoch milliseconds. */
  valueDate: number;
  taken: boolean;
}

/** A posting the external-reference pass may pair with a row: it belongs to a transaction carrying the row's triple. */
export interface RefCandidate {
  rowId: string;
  posting: MatchPosting;
}

export interface MatchOptions {
  strategy: RunStrategy;
  windowMs: number;
  /** Largest |residual| that still counts as a match (auto-resolved when not zero). */
  tolerance: bigint;
}

export interface FoundMatch {
  row: MatchRow;
  postings: MatchPosting[];
  pass: MatchPass;
  /** Row amount minus the postings' sum. */
  residual: bigint;
}

/** Most postings one sum_in_window match may combine. */
export const MAX_SUM_PARTS = 5;
/** Postings nearest in date a sum search considers, bounding its combinations. */
const SUM_CANDIDATES = 16;

const abs = (v: bigint) => (v < 0n ? -v : v);

/** Orders candidates of one row: nearest in date first, then lowest posting id (ids are digit strings). */
function closer(at: number) {
  return (a: MatchPosting, b: MatchPosting) => {
    const d = Math.abs(a.valueDate - at) - Math.abs(b.valueDate - at);
    if (d !== 0) return d;
    return a.id.length - b.id.length || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  };
}

/** First index whose key is >= `key` in an ascending array. */
function lowerBound<T>(items: T[], key: number, of: (item: T) => number): number {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (of(items[mid]) < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function groupBy<T>(items: T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const group = groups.get(k);
    if (group) group.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}

const byDate = (a: MatchPosting, b: MatchPosting) => a.valueDate - b.valueDate || a.id.length - b.id.length || (a.id < b.id ? -1 : 1);

/**
 * Postings of one (currency, account scope, amount) sorted by date, with "next free" links that
 * skip taken postings, so a long run of equal amounts is not rescanned for every row.
 */
class DateList {
  private readonly right: Int32Array;
  private readonly left: Int32Array;

  constructor(readonly postings: MatchPosting[]) {
    const n = postings.length;
    this.right = Int32Array.from({ length: n + 1 }, (_, i) => i);
    this.left = Int32Array.from({ length: n + 1 }, (_, i) => i);
  }

  private find(links: Int32Array, i: number): number {
    let root = i;
    while (links[root] !== root) root = links[root];
    while (links[i] !== root) {
      const next = links[i];
      links[i] = root;
      i = next;
    }
    return root;
  }

  /** The first free posting at or after index i (postings.length when none). */
  private nextFree(i: number): number {
    const n = this.postings.length;
    for (;;) {
      const r = this.find(this.right, i);
      if (r >= n || !this.postings[r].taken) return r;
      this.right[r] = r + 1;
      i = r + 1;
    }
  }

  /** The last free posting at or before index i (-1 when none); `left` is shifted by one so -1 fits. */
  private prevFree(i: number): number {
    for (;;) {
      const r = this.find(this.left, i + 1) - 1;
      if (r < 0 || !this.postings[r].taken) return r;
      this.left[r + 1] = r;
      i = r - 1;
    }
  }

  /** The free posting nearest to `at` within `windowMs` (ties: lower id). */
  nearest(at: number, windowMs: number): MatchPosting | null {
    const start = lowerBound(this.postings, at, (p) => p.valueDate);
    const after = this.nextFree(start);
    const latest = this.prevFree(start - 1);
    // The latest free posting before `at` is the highest id of its date: take that date's lowest free id.
    const before = latest < 0 ? -1 : this.nextFree(lowerBound(this.postings, this.postings[latest].valueDate, (p) => p.valueDate));
    const candidates = [after < this.postings.length ? this.postings[after] : null, before >= 0 ? this.postings[before] : null]
      .filter((p): p is MatchPosting => p !== null && Math.abs(p.valueDate - at) <= windowMs)
      .sort(closer(at));
    return candidates[0] ?? null;
  }
}

export class ReconciliationMatcher {
  private readonly matches: FoundMatch[] = [];
  private readonly matchedRows = new Set<string>();

  constructor(
    private readonly rows: MatchRow[],
    private readonly postings: MatchPosting[],
    private readonly options: MatchOptions,
  ) {
    this.rows = [...rows].sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /** Runs every pass; `refCandidates` feeds the external-reference pass. */
  run(refCandidates: RefCandidate[]): FoundMatch[] {
    this.externalRefPass(refCandidates);
    this.exactPass();
    if (this.options.tolerance > 0n) this.tolerancePass();
    if (this.options.strategy === 'sum_in_window') this.sumPass();
    return this.matches;
  }

  private open(): MatchRow[] {
    return this.rows.filter((r) => !this.matchedRows.has(r.id));
  }

  private take(row: MatchRow, postings: MatchPosting[], pass: MatchPass): void {
    for (const p of postings) p.taken = true;
    this.matchedRows.add(row.id);
    const residual = row.amount - postings.reduce((sum, p) => sum + p.amount, 0n);
    this.matches.push({ row, postings, pass, residual });
  }

  private inScope(row: MatchRow, p: MatchPosting): boolean {
    return p.currency === row.currency && (row.scopeAccount === null || p.accountId === row.scopeAccount);
  }

  /** Pass 1: a posting of a transaction carrying the row's reference triple, for exactly the row's amount. */
  private externalRefPass(candidates: RefCandidate[]): void {
    if (candidates.length === 0) return;
    const byRow = groupBy(candidates, (c) => c.rowId);
    for (const row of this.rows) {
      const mine = row.ref === null ? undefined : byRow.get(row.id);
      if (!mine) continue;
      const found = mine
        .map((c) => c.posting)
        .filter((p) => !p.taken && p.amount === row.amount && this.inScope(row, p))
        .sort(closer(row.at))[0];
      if (found) this.take(row, [found], 'external_ref');
    }
  }

  /**
   * Pass 2: equal amount, value date within the window, the nearest date wins. Postings are
   * grouped by (currency, account scope, amount); a group is sorted by date only when a row looks
   * into it and it holds more than one posting (most hold one).
   */
  private exactPass(): void {
    const open = this.open();
    const scoped = open.some((r) => r.scopeAccount !== null);
    const unscoped = open.some((r) => r.scopeAccount === null);
    const groups = new Map<string, MatchPosting[]>();
    const add = (key: string, p: MatchPosting) => {
      const group = groups.get(key);
      if (group) group.push(p);
      else groups.set(key, [p]);
    };
    for (const p of this.postings) {
      if (p.taken) continue;
      const amount = p.amount.toString();
      if (unscoped) add(`${p.currency}\u0000\u0000${amount}`, p);
      if (scoped) add(`${p.currency}\u0000${p.accountId}\u0000${amount}`, p);
    }
    const lists = new Map<string, DateList>();
    const { windowMs } = this.options;
    for (const row of open) {
      const key = `${row.currency}\u0000${row.scopeAccount ?? ''}\u0000${row.amount.toString()}`;
      const group = groups.get(key);
      if (!group) continue;
      if (group.length === 1) {
        const [p] = group;
        if (!p.taken && Math.abs(p.valueDate - row.at) <= windowMs) this.take(row, [p], 'exact');
        continue;
      }
      let list = lists.get(key);
      if (!list) {
        list = new DateList(group.sort(byDate));
        lists.set(key, list);
      }
      const found = list.nearest(row.at, windowMs);
      if (found) this.take(row, [found], 'exact');
    }
  }

  /** The postings no match has taken yet, per currency, each group in `order`. */
  private untakenByCurrency(order: (a: MatchPosting, b: MatchPosting) => number): Map<string, MatchPosting[]> {
    const groups = groupBy(
      this.postings.filter((p) => !p.taken),
      (p) => p.currency,
    );
    for (const group of groups.values()) group.sort(order);
    return groups;
  }

  /** Pass 2, second half: amounts within the tolerance (smallest residual, then nearest date), for rows still open. */
  private tolerancePass(): void {
    const { tolerance, windowMs } = this.options;
    const byCurrency = this.untakenByCurrency((a, b) => (a.amount < b.amount ? -1 : a.amount > b.amount ? 1 : byDate(a, b)));
    for (const row of this.open()) {
      const group = byCurrency.get(row.currency) ?? [];
      let lo = 0;
      let hi = group.length;
      const low = row.amount - tolerance;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (group[mid].amount < low) lo = mid + 1;
        else hi = mid;
      }
      let best: MatchPosting | null = null;
      for (let i = lo; i < group.length && group[i].amount <= row.amount + tolerance; i++) {
        const p = group[i];
        if (p.taken || !this.inScope(row, p) || Math.abs(p.valueDate - row.at) > windowMs) continue;
        if (!best) best = p;
        else {
          const d = abs(row.amount - p.amount) - abs(row.amount - best.amount);
          if (d < 0n || (d === 0n && closer(row.at)(p, best) < 0)) best = p;
        }
      }
      if (best) this.take(row, [best], 'exact');
    }
  }

  /**
   * Pass 3: two to five postings of the row's sign inside the window whose sum is the row's amount
   * (or within the tolerance). Searches the nearest postings only; fewer parts win, then the
   * smallest residual, then the combination nearest in date (candidates are ordered nearest first).
   */
  private sumPass(): void {
    const { tolerance, windowMs } = this.options;
    const byCurrency = this.untakenByCurrency(byDate);
    for (const row of this.open()) {
      const group = byCurrency.get(row.currency) ?? [];
      const positive = row.amount > 0n;
      const limit = abs(row.amount) + tolerance;
      const near: MatchPosting[] = [];
      for (let i = lowerBound(group, row.at - windowMs, (p) => p.valueDate); i < group.length && group[i].valueDate <= row.at + windowMs; i++) {
        const p = group[i];
        if (!p.taken && p.amount > 0n === positive && abs(p.amount) <= limit && this.inScope(row, p)) near.push(p);
      }
      const candidates = near.sort(closer(row.at)).slice(0, SUM_CANDIDATES);
      const found = findSum(candidates, row.amount, tolerance);
      if (found) this.take(row, found, 'sum_in_window');
    }
  }
}

/**
 * The combination of 2..MAX_SUM_PARTS candidates (all of one sign) whose sum is within `tolerance`
 * of `target`: fewest parts first, then smallest residual, then first in candidate order.
 */
export function findSum(candidates: MatchPosting[], target: bigint, tolerance: bigint): MatchPosting[] | null {
  const n = candidates.length;
  const limit = abs(target) + tolerance;
  const picked: number[] = [];
  for (let parts = 2; parts <= Math.min(MAX_SUM_PARTS, n); parts++) {
    let best: { residual: bigint; indexes: number[] } | null = null;
    const search = (from: number, sum: bigint): boolean => {
      if (picked.length === parts) {
        const residual = abs(target - sum);
        if (residual <= tolerance && (!best || residual < best.residual)) best = { residual, indexes: [...picked] };
        return best?.residual === 0n;
      }
      for (let i = from; i <= n - (parts - picked.length); i++) {
        const next = sum + candidates[i].amount;
        // Every part has the target's sign, so a partial sum past the target only grows.
        if (abs(next) > limit) continue;
        picked.push(i);
        const exact = search(i + 1, next);
        picked.pop();
        if (exact) return true;
      }
      return false;
    };
    search(0, 0n);
    const found = best as { residual: bigint; indexes: number[] } | null;
    if (found) return found.indexes.map((i) => candidates[i]);
  }
  return null;
}
