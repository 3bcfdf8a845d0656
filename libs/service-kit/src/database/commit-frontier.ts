/**
 * The snapshot's bounds, for readers that follow rows in commit order by their writing transaction's
 * id (a `xid xid8 DEFAULT pg_current_xact_id()` column). `frontier`: the oldest transaction of this
 * database still in flight (or, with none, the next transaction id). Every transaction that could
 * still add a row has an id at or above it, so rows written below it are final: serving only those,
 * in (xid, seq) order, no later commit can ever land behind a position a reader has passed.
 * Transactions of other databases on the cluster cannot write here and are left out, so an idle one
 * elsewhere does not stall readers; an in-flight id whose database is no longer known counts, to
 * stay safe. `horizon`: the next transaction id, above every transaction committed before this read.
 */
export const COMMIT_FRONTIER_SQL = `SELECT coalesce(
    (SELECT min(x) FROM pg_snapshot_xip(s) x
     WHERE x::xid NOT IN (SELECT backend_xid FROM pg_stat_activity WHERE backend_xid IS NOT NULL AND datname <> current_database())),
    pg_snapshot_xmax(s)) AS frontier,
  pg_snapshot_xmax(s) AS horizon
  FROM pg_current_snapshot() s`;
