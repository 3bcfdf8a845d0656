-- Every change to a ledger's books, as its Merkle log records it (docs/verifiable-records.md): one row
-- per change, placed in commit order by (xid, seq), with the immutable facts the change wrote. The
-- sealer reads it to append entries and the verifier to rebuild them, so both read the same facts.
-- Money movements are read from the books themselves (transactions and postings); other changes
-- from the event that recorded them; a plain period close, which by contract emits no event, from
-- its period_closes row.
-- Times in the facts as RFC 3339 UTC with microseconds, whatever the session's time zone.
CREATE OR REPLACE FUNCTION ledger_log_time(at timestamptz) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')
$$;

CREATE OR REPLACE VIEW ledger_log_changes AS
SELECT e.id AS source_id, e.ledger_id AS log_id, e.type, e.resource_id, e.xid, e.seq, e.created_at AS committed_at,
  CASE
    WHEN e.type IN ('transaction.created', 'transaction.reversal_created', 'transaction.refund_created') THEN (
      SELECT jsonb_build_object(
        'kind', t.kind,
        'value_date', ledger_log_time(t.value_date),
        'reverses', t.reverses,
        'refund', CASE WHEN t.refund_amount IS NULL THEN NULL ELSE jsonb_build_object('amount', t.refund_amount::text, 'currency', t.refund_currency) END,
        'external_refs', (SELECT coalesce(jsonb_agg(jsonb_build_object('rail', r.rail, 'kind', r.ref_kind, 'value', r.value) ORDER BY r.rail, r.ref_kind, r.value), '[]')
          FROM transaction_external_refs r WHERE r.transaction_id = t.id),
        -- Metadata as written: a later update is an entry of its own and changes the row, not this.
        'metadata', e.data->'metadata',
        'postings', (SELECT jsonb_agg(jsonb_build_object(
            'id', p.id::text, 'account', p.account_id, 'amount', p.amount::text, 'currency', p.currency, 'direction', p.direction,
            -- A committed leg was written pending; committing clears the flag, not the fact.
            'pending', p.pending OR p.committed_at IS NOT NULL) ORDER BY p.id)
          FROM postings p WHERE p.transaction_id = t.id))
      FROM transactions t WHERE t.id = e.resource_id::uuid AND t.ledger_id = e.ledger_id)
    WHEN e.type = 'transaction.committed' THEN jsonb_build_object('committed', (
      SELECT coalesce(jsonb_agg(p.id::text ORDER BY p.id), '[]') FROM postings p
      WHERE p.transaction_id = e.resource_id::uuid AND p.committed_at IS NOT NULL))
    WHEN e.type = 'transaction.reversed' THEN jsonb_build_object(
      'reversal', (SELECT t.id FROM transactions t WHERE t.reverses = e.resource_id::uuid AND t.ledger_id = e.ledger_id AND t.kind = 'reversal'),
      'voided', (SELECT coalesce(jsonb_agg(p.id::text ORDER BY p.id), '[]') FROM postings p
        WHERE p.transaction_id = e.resource_id::uuid AND p.voided_at IS NOT NULL))
    WHEN e.type = 'transaction.updated' THEN jsonb_build_object('metadata', e.data->'metadata')
    ELSE e.data
  END AS facts
FROM events e
WHERE e.type IN ('transaction.created', 'transaction.reversal_created', 'transaction.refund_created', 'transaction.committed',
  'transaction.reversed', 'transaction.updated', 'period.reopened', 'account.created', 'account.closed',
  'account.classification_changed', 'reserve.swept', 'reserve.released', 'reserve.clawed')
UNION ALL
SELECT pc.id, pc.ledger_id, 'period.closed', pc.id::text, pc.xid, pc.log_seq, pc.created_at,
  jsonb_build_object('period_start', ledger_log_time(pc.period_start), 'period_end', ledger_log_time(pc.period_end), 'closed_by', pc.closed_by_label,
    'forced', pc.forced, 'forced_by', pc.forced_by_label, 'trial_balance', pc.trial_balance)
FROM period_closes pc;
