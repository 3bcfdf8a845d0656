-- ledger_write_batch as migration WriteBatchTraceContext1763960025000 applied it (frozen; the current body is
-- ledger-write-batch.sql). The down step of BooksEngine1763960030000 applies it.
CREATE OR REPLACE FUNCTION ledger_write_batch(batch jsonb) RETURNS jsonb LANGUAGE plpgsql AS $fn$
DECLARE
  ledger constant uuid := (batch->>'ledger')::uuid;
  stale constant timestamptz := (batch->>'stale_before')::timestamptz;
  expired constant timestamptz := (batch->>'expired_before')::timestamptz;
  items constant jsonb := batch->'items';
  a_id text[]; a_type text[]; a_cur text[]; a_status text[]; a_policy text[]; a_limit numeric[]; a_ver int[];
  p_dr numeric[]; p_cr numeric[]; q_dr numeric[]; q_cr numeric[]; moved boolean[];
  used_keys text[]; held_keys text[]; closed_from timestamptz[]; closed_to timestamptz[];
  seen_refs text[] := '{}'; item_refs text[]; seen_keys text[] := '{}';
  accepted int[] := '{}'; ref_count int := 0; key_count int := 0; written int;
  results jsonb[] := '{}';
  item jsonb; ps jsonb; p jsonb; c jsonb; r jsonb; idem jsonb; err jsonb; unknown jsonb; touched jsonb;
  n int; m int; k int; j int; ref_id text; key_id text; vd timestamptz;
  d_acc text[]; d_pdr numeric[]; d_pcr numeric[]; d_qdr numeric[]; d_qcr numeric[];
  amount numeric; before numeric; after numeric;
BEGIN
  PERFORM pg_advisory_xact_lock_shared(hashtextextended('books:' || ledger::text, 0));
  SELECT coalesce(array_agg(s.id ORDER BY s.id), '{}'), array_agg(s.type ORDER BY s.id), array_agg(s.currency ORDER BY s.id),
    array_agg(s.status ORDER BY s.id), array_agg(s.overdraft_policy ORDER BY s.id), array_agg(s.overdraft_limit ORDER BY s.id),
    array_agg(s.lock_version ORDER BY s.id), array_agg(s.posted_debits ORDER BY s.id), array_agg(s.posted_credits ORDER BY s.id),
    array_agg(s.pending_debits ORDER BY s.id), array_agg(s.pending_credits ORDER BY s.id), array_agg(false)
  INTO a_id, a_type, a_cur, a_status, a_policy, a_limit, a_ver, p_dr, p_cr, q_dr, q_cr, moved
  FROM (
    SELECT a.id, a.type, a.currency, a.status, a.overdraft_policy, a.overdraft_limit, a.lock_version,
      b.posted_debits, b.posted_credits, b.pending_debits, b.pending_credits
    FROM accounts a JOIN account_balances b ON b.ledger_id = a.ledger_id AND b.account_id = a.id
    WHERE a.ledger_id = ledger AND a.id = ANY(ARRAY(SELECT jsonb_array_elements_text(batch->'accounts')))
    ORDER BY a.id
    FOR NO KEY UPDATE OF a, b
  ) s;

  SELECT coalesce(array_agg(t.idempotency_key), '{}') INTO used_keys FROM transactions t
  WHERE t.ledger_id = ledger
    AND t.idempotency_key = ANY(ARRAY(SELECT x->>'key' FROM jsonb_array_elements(items) x WHERE x->>'key' IS NOT NULL));
  -- Idempotency key rows another request holds: those a new completion may not take over.
  SELECT coalesce(array_agg(h.client_id || ' ' || h.route || ' ' || h.key), '{}') INTO held_keys
  FROM jsonb_array_elements(items) x
  JOIN idempotency_keys h ON h.organization_id = (x->'idem'->>'organization')::uuid AND h.mode = x->'idem'->>'mode'
    AND h.client_id = x->'idem'->>'client' AND h.route = x->'idem'->>'route' AND h.key = x->'idem'->>'key'
  WHERE jsonb_typeof(x->'idem') = 'object'
    AND NOT coalesce((h.state = 'in_progress' AND h.locked_at < stale AND h.fingerprint = x->'idem'->>'fingerprint')
      OR (h.state = 'completed' AND h.completed_at < expired), false);
  -- Closes cannot change meanwhile: closing a period takes the ledger's write lock exclusively.
  SELECT coalesce(array_agg(period_start), '{}'), coalesce(array_agg(period_end), '{}') INTO closed_from, closed_to
  FROM period_closes WHERE ledger_id = ledger AND reopened_at IS NULL;

  FOR n IN 1 .. jsonb_array_length(items) LOOP
    item := items->(n - 1);
    ps := item->'postings';
    err := NULL;
    unknown := '[]';
    FOR m IN 0 .. jsonb_array_length(ps) - 1 LOOP
      IF array_position(a_id, ps->m->>'account') IS NULL THEN unknown := unknown || to_jsonb(m); END IF;
    END LOOP;
    IF jsonb_array_length(unknown) > 0 THEN
      err := jsonb_build_object('error', 'unknown_account', 'postings', unknown);
    END IF;
    IF err IS NULL THEN
      FOR m IN 0 .. jsonb_array_length(ps) - 1 LOOP
        k := array_position(a_id, ps->m->>'account');
        IF ps->m->>'currency' <> a_cur[k] THEN
          err := jsonb_build_object('error', 'currency_mismatch', 'posting', m, 'account_currency', a_cur[k]);
        ELSIF a_status[k] = 'closed' THEN
          err := jsonb_build_object('error', 'account_closed', 'posting', m);
        END IF;
        EXIT WHEN err IS NOT NULL;
      END LOOP;
    END IF;
    IF err IS NULL THEN
      FOR m IN 0 .. coalesce(jsonb_array_length(item->'conditions'), 0) - 1 LOOP
        c := item->'conditions'->m;
        k := array_position(a_id, c->>'account');
        IF k IS NULL THEN
          err := jsonb_build_object('error', 'precondition_failed', 'condition', m, 'failed', 'account exists', 'actual', NULL);
        ELSE
          before := books_available(a_type[k], p_dr[k], p_cr[k], q_dr[k], q_cr[k]);
          IF c ? 'lock_version' AND (c->>'lock_version')::int <> a_ver[k] THEN
            err := jsonb_build_object('error', 'precondition_failed', 'condition', m, 'failed', 'lock_version', 'actual', a_ver[k]);
          ELSIF c ? 'min_available' AND before < (c->>'min_available')::numeric THEN
            err := jsonb_build_object('error', 'precondition_failed', 'condition', m, 'failed', 'min_available_balance', 'actual', before::text);
          ELSIF c ? 'max_available' AND before > (c->>'max_available')::numeric THEN
            err := jsonb_build_object('error', 'precondition_failed', 'condition', m, 'failed', 'max_available_balance', 'actual', before::text);
          END IF;
        END IF;
        EXIT WHEN err IS NOT NULL;
      END LOOP;
    END IF;
    IF err IS NULL THEN
      -- Each account's change, in the order the postings first name it.
      d_acc := '{}'; d_pdr := '{}'; d_pcr := '{}'; d_qdr := '{}'; d_qcr := '{}';
      FOR m IN 0 .. jsonb_array_length(ps) - 1 LOOP
        p := ps->m;
        j := array_position(d_acc, p->>'account');
        IF j IS NULL THEN
          d_acc := d_acc || (p->>'account'); j := cardinality(d_acc);
          d_pdr[j] := 0; d_pcr[j] := 0; d_qdr[j] := 0; d_qcr[j] := 0;
        END IF;
        amount := (p->>'amount')::numeric;
        IF (p->>'pending')::boolean THEN
          IF p->>'direction' = 'debit' THEN d_qdr[j] := d_qdr[j] + amount; ELSE d_qcr[j] := d_qcr[j] + amount; END IF;
        ELSIF p->>'direction' = 'debit' THEN d_pdr[j] := d_pdr[j] + amount;
        ELSE d_pcr[j] := d_pcr[j] + amount;
        END IF;
      END LOOP;
      FOR j IN 1 .. cardinality(d_acc) LOOP
        k := array_position(a_id, d_acc[j]);
        before := books_available(a_type[k], p_dr[k], p_cr[k], q_dr[k], q_cr[k]);
        after := books_available(a_type[k], p_dr[k] + d_pdr[j], p_cr[k] + d_pcr[j], q_dr[k] + d_qdr[j], q_cr[k] + d_qcr[j]);
        IF a_policy[k] = 'none' AND after < before AND after < -a_limit[k] THEN
          err := jsonb_build_object('error', 'insufficient_funds', 'account', a_id[k], 'currency', a_cur[k],
            'available', before::text, 'available_after', after::text, 'overdraft_limit', a_limit[k]::text);
          EXIT;
        END IF;
      END LOOP;
    END IF;
    IF err IS NULL THEN
      vd := (item->>'value_date')::timestamptz;
      FOR j IN 1 .. cardinality(closed_from) LOOP
        IF vd >= closed_from[j] AND vd < closed_to[j] THEN err := jsonb_build_object('error', 'period_closed'); EXIT; END IF;
      END LOOP;
    END IF;
    IF err IS NULL AND item->>'key' = ANY(used_keys) THEN
      err := jsonb_build_object('error', 'key_taken');
    END IF;
    IF err IS NULL THEN
      item_refs := '{}';
      FOR m IN 0 .. coalesce(jsonb_array_length(item->'refs'), 0) - 1 LOOP
        r := item->'refs'->m;
        ref_id := (r->>'rail') || E'\n' || (r->>'kind') || E'\n' || (r->>'value');
        IF ref_id = ANY(seen_refs) OR ref_id = ANY(item_refs) OR EXISTS (
          SELECT 1 FROM transaction_external_refs e
          WHERE e.ledger_id = ledger AND e.rail = r->>'rail' AND e.ref_kind = r->>'kind' AND e.value = r->>'value'
        ) THEN
          err := jsonb_build_object('error', 'duplicate_external_ref', 'ref', m);
          EXIT;
        END IF;
        item_refs := item_refs || ref_id;
      END LOOP;
    END IF;
    idem := item->'idem';
    key_id := NULL;
    IF err IS NULL AND jsonb_typeof(idem) = 'object' THEN
      key_id := (idem->>'client') || ' ' || (idem->>'route') || ' ' || (idem->>'key');
      IF key_id = ANY(held_keys) OR key_id = ANY(seen_keys) THEN err := jsonb_build_object('error', 'key_taken'); END IF;
    END IF;
    IF err IS NOT NULL THEN
      results := array_append(results, err);
      CONTINUE;
    END IF;

    -- Accepted: the running totals carry its effect to the items after it.
    touched := '[]';
    FOR j IN 1 .. cardinality(d_acc) LOOP
      k := array_position(a_id, d_acc[j]);
      p_dr[k] := p_dr[k] + d_pdr[j]; p_cr[k] := p_cr[k] + d_pcr[j];
      q_dr[k] := q_dr[k] + d_qdr[j]; q_cr[k] := q_cr[k] + d_qcr[j];
      moved[k] := true;
      IF (item->>'touched')::boolean THEN
        touched := touched || jsonb_build_object('id', a_id[k], 'type', a_type[k], 'currency', a_cur[k], 'status', a_status[k],
          'overdraftPolicy', a_policy[k], 'overdraftLimit', a_limit[k]::text, 'lockVersion', a_ver[k],
          'postedDebits', p_dr[k]::text, 'postedCredits', p_cr[k]::text,
          'pendingDebits', q_dr[k]::text, 'pendingCredits', q_cr[k]::text);
      END IF;
    END LOOP;
    accepted := accepted || n;
    IF item->>'key' IS NOT NULL THEN used_keys := used_keys || (item->>'key'); END IF;
    seen_refs := seen_refs || item_refs;
    ref_count := ref_count + cardinality(item_refs);
    IF key_id IS NOT NULL THEN
      seen_keys := seen_keys || key_id;
      IF idem->>'body' IS NOT NULL THEN key_count := key_count + 1; END IF;
    END IF;
    results := array_append(results, jsonb_build_object('ok', true, 'touched', touched));
  END LOOP;

  IF cardinality(accepted) = 0 THEN RETURN to_jsonb(results); END IF;

  INSERT INTO transactions (id, ledger_id, idempotency_key, kind, reverses, refund_amount, refund_currency, metadata, value_date,
    booking_date, created_at, updated_at)
  SELECT (x.i->>'id')::uuid, ledger, x.i->>'key', x.i->>'kind', (x.i->>'reverses')::uuid, (x.i->>'refund_amount')::numeric,
    x.i->>'refund_currency', x.i->'metadata', (x.i->>'value_date')::timestamptz, (x.i->>'created_at')::timestamptz,
    (x.i->>'created_at')::timestamptz, (x.i->>'created_at')::timestamptz
  FROM jsonb_array_elements(items) WITH ORDINALITY AS x(i, n)
  WHERE x.n = ANY(accepted)
  ORDER BY x.n
  ON CONFLICT (ledger_id, idempotency_key) DO NOTHING;
  GET DIAGNOSTICS written = ROW_COUNT;
  IF written < cardinality(accepted) THEN
    RAISE EXCEPTION 'a transaction key was used by a concurrent write' USING ERRCODE = 'BK002';
  END IF;

  IF ref_count > 0 THEN
    INSERT INTO transaction_external_refs (id, ledger_id, transaction_id, rail, ref_kind, value, metadata, created_at)
    SELECT (y.r->>'id')::uuid, ledger, (x.i->>'id')::uuid, y.r->>'rail', y.r->>'kind', y.r->>'value', y.r->'metadata',
      (x.i->>'created_at')::timestamptz
    FROM jsonb_array_elements(items) WITH ORDINALITY AS x(i, n), jsonb_array_elements(x.i->'refs') WITH ORDINALITY AS y(r, m)
    WHERE x.n = ANY(accepted)
    ORDER BY x.n, y.m
    ON CONFLICT (ledger_id, rail, ref_kind, value) DO NOTHING;
    GET DIAGNOSTICS written = ROW_COUNT;
    IF written < ref_count THEN
      RAISE EXCEPTION 'an external ref was taken by a concurrent write' USING ERRCODE = 'BK002';
    END IF;
  END IF;

  IF key_count > 0 THEN
    INSERT INTO idempotency_keys (organization_id, mode, client_id, route, key, fingerprint, state, completed_at, response_status,
      response_body)
    SELECT (x.i->'idem'->>'organization')::uuid, x.i->'idem'->>'mode', x.i->'idem'->>'client', x.i->'idem'->>'route',
      x.i->'idem'->>'key', x.i->'idem'->>'fingerprint', 'completed', now(), (x.i->'idem'->>'status')::int, x.i->'idem'->>'body'
    FROM jsonb_array_elements(items) WITH ORDINALITY AS x(i, n)
    WHERE x.n = ANY(accepted) AND x.i->'idem'->>'body' IS NOT NULL
    ON CONFLICT (organization_id, mode, client_id, route, key) DO UPDATE SET
      fingerprint = EXCLUDED.fingerprint, state = 'completed', locked_at = now(), created_at = now(),
      response_status = EXCLUDED.response_status, response_body = EXCLUDED.response_body, completed_at = now()
    WHERE (idempotency_keys.state = 'in_progress' AND idempotency_keys.locked_at < stale
           AND idempotency_keys.fingerprint = EXCLUDED.fingerprint)
       OR (idempotency_keys.state = 'completed' AND idempotency_keys.completed_at < expired);
    GET DIAGNOSTICS written = ROW_COUNT;
    IF written < key_count THEN
      RAISE EXCEPTION 'an idempotency key was taken by a concurrent write' USING ERRCODE = 'BK002';
    END IF;
  END IF;

  INSERT INTO postings (id, ledger_id, transaction_id, account_id, amount, currency, direction, pending, tags, value_date, created_at)
  OVERRIDING SYSTEM VALUE
  SELECT (y.p->>'id')::bigint, ledger, (x.i->>'id')::uuid, y.p->>'account', (y.p->>'amount')::numeric, y.p->>'currency',
    y.p->>'direction', (y.p->>'pending')::boolean, y.p->'tags', (x.i->>'value_date')::timestamptz, (x.i->>'created_at')::timestamptz
  FROM jsonb_array_elements(items) WITH ORDINALITY AS x(i, n), jsonb_array_elements(x.i->'postings') WITH ORDINALITY AS y(p, m)
  WHERE x.n = ANY(accepted)
  ORDER BY x.n, y.m;

  -- The rows are locked, so the running totals are the new values.
  UPDATE account_balances b SET posted_debits = v.pdr, posted_credits = v.pcr, pending_debits = v.qdr, pending_credits = v.qcr
  FROM unnest(a_id, p_dr, p_cr, q_dr, q_cr, moved) AS v(id, pdr, pcr, qdr, qcr, moved)
  WHERE v.moved AND b.ledger_id = ledger AND b.account_id = v.id;

  -- Each item's events carry its request's trace context (a JSON null, tracing off, stores SQL NULL).
  INSERT INTO events (organization_id, ledger_id, mode, type, resource_id, data, trace_context)
  SELECT (batch->>'organization')::uuid, ledger, batch->>'mode', y.e->>'type', y.e->>'resource_id', y.e->'data',
    nullif(x.i->'trace_context', 'null'::jsonb)
  FROM jsonb_array_elements(items) WITH ORDINALITY AS x(i, n), jsonb_array_elements(x.i->'events') WITH ORDINALITY AS y(e, m)
  WHERE x.n = ANY(accepted)
  ORDER BY x.n, y.m;

  RETURN to_jsonb(results);
END
$fn$;
