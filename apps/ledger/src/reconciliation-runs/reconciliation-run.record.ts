import type { RunStrategy } from './reconciliation-matcher';

export const RUN_STATUSES = ['queued', 'running', 'completed', 'failed'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** One reconciliation_runs row as the repository reads it (the result arrays only when asked for). */
export interface RunRecord {
  id: string;
  ledgerId: string;
  sourceId: string;
  sourceName: string;
  /** The source's default account, read with the run. */
  sourceDefaultAccountId: string | null;
  status: RunStatus;
  externalReference: string | null;
  note: string | null;
  strategy: RunStrategy;
  windowSeconds: number;
  autoResolveBelow: string;
  rangeFrom: Date | null;
  rangeTo: Date | null;
  matchedCount: number;
  unmatchedCount: number;
  passCounts: Record<string, number>;
  errorMessage: string | null;
  attempts: number;
  /** Inline runs: the rows their request carried; null for source runs (every open row of the source). */
  externalTransactionIds: string[] | null;
  startedAt: Date | null;
  heartbeatAt: Date | null;
  completedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  /** The result arrays as JSON text, only when read with them. */
  matchedJson?: string;
  unmatchedExternalJson?: string;
  unmatchedInternalJson?: string;
}

/** What a new run is asked to do; `status` is `running` for runs the request executes itself, else `queued`. */
export type NewRun = Pick<
  RunRecord,
  'sourceId' | 'externalReference' | 'note' | 'strategy' | 'windowSeconds' | 'autoResolveBelow' | 'rangeFrom' | 'rangeTo' | 'externalTransactionIds'
> & { status: 'queued' | 'running' };
