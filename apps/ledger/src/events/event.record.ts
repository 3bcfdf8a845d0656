import type { Mode } from '../common/mode';

/** One row of the events log, as the repository reads it. */
export interface EventRecord {
  id: string;
  seq: string;
  /** The writing transaction's id (xid8); with `seq`, the event's position in the tail. */
  xid: string;
  ledgerId: string;
  mode: Mode;
  type: string;
  resourceId: string | null;
  data: Record<string, unknown>;
  createdAt: Date;
}

/** Columns selected wherever an event row is read, mapped onto EventRecord. */
export const EVENT_COLUMNS = `id, seq::text AS seq, xid::text AS xid, ledger_id AS "ledgerId", mode, type, resource_id AS "resourceId", data,
  created_at AS "createdAt"`;

/**
 * The wire shape of an event, shared by the events tail and webhook bodies. The body travels as
 * `data` (reference R2) and again as `payload` (R1, which the first SDK reads), since both
 * revisions' clients must work.
 */
export function presentEvent(event: Omit<EventRecord, 'seq' | 'xid'>) {
  return {
    object: 'event' as const,
    id: event.id,
    type: event.type,
    resource_id: event.resourceId,
    ledger_id: event.ledgerId,
    created_at: event.createdAt.toISOString(),
    data: event.data,
    payload: event.data,
    livemode: event.mode === 'live',
  };
}
