-- ledger_write_batch(batch jsonb): the books engine. Every change of a ledger's balances is judged and
-- written here, in one function call: new transactions (single, keyed, bulk), dry runs, reversals (which
-- void the original's open pending legs), refunds, reserve operations and commits of pending legs. The
-- service builds the batch (ids, posting ids, write times, events, their trace context and sealed
-- idempotent answers included) and renders each item's result; the rules themselves live only here.
-- Called in autocommit, BEGIN and COMMIT travel with it, so a batch costs one round trip; corrections
-- and commits call it inside their own transaction, after locking the transaction they correct.
--
-- It takes the ledger's write lock shared, locks the accounts and their balance rows in id order, then
-- the open pending legs the items void or commit, reads what the checks need once (used transaction
-- keys, idempotency keys that cannot be taken over, closed periods), then judges each item in order
-- against running totals that include the accepted items before it: used transaction key (a replay,
-- judged first so it answers whatever the balances are now), unknown account, currency, closed
-- account, conditions, overdraft, closed period, taken external ref, held idempotency key. A refused
-- item gets its error and writes nothing; the others are written together at the end. Nothing is
-- written before every check has passed, so no item needs a subtransaction.
--
-- Modes (batch members): `dry_run` judges every item exactly so and writes nothing (no row, no key, no
-- event); `atomic` writes nothing when any item is refused for a reason other than its key naming an
-- earlier transaction (which the service answers as a replay). Item members beyond a new transaction's:
-- `voids` (posting ids: pending legs of other transactions it releases) and `commit` (a transaction
-- id, instead of `id`: its open pending legs become posted; no new transaction).
-- The one case the reads cannot see, a key or ref written by a transaction still in flight, makes
-- the conflicting insert wait for it and come back short: then the function raises BK002 and the
-- service calls again (one item at a time when it batched several), when the reads see it.
--
-- This file is the function's one body in the repository (earlier bodies are in git history). Every
-- migration that changed the function applies this file, so a fresh database gets the current body and a
-- change is: edit this file, add a migration that applies it (see BooksEngine1763960030000).
CREATE OR REPLACE FUNCTION ledger_write_batch(batch jsonb) RETURNS jsonb LANGUAGE plpgsql AS $fn$
DECLARE
  ledger constant uuid := (batch->>'ledger')::uuid;
  stale constant timestamptz := (batch->>'stale_before')::timestamptz;
  expired constant timestamptz := (batch->>'expired_before')::timestamptz;
  dry_run constant boolean := coalesce((batch->>'dry_run')::boolean, false);
  atomic constant boolean := coalesce((batch->>'atomic')::boolean, false);
  items constant jsonb := batch->'items';
  -- The locked accounts, in id order, with their running totals (moved: changed by an accepted item).
  a_id text[]; a_type text[]; a_cur text[]; a_status text[]; a_policy text[]; a_limit numeric[]; a_ver int[];
  p_dr numeric[]; p_cr numeric[]; q_dr numeric[]; q_cr numeric[]; moved boolean[];
  -- The open pending legs the items void or commit, locked; `released` holds those accepted items took.
  o_id bigint[]; o_tx uuid[]; o_acc text[]; o_amt numeric[]; o_dir text[];
  void_ids bigint[]; commit_ids uuid[]; released bigint[] := '{}'::bigint[]; item_released bigint[];
  voided bigint[] := '{}'::bigint[]; committed bigint[] := '{}'::bigint[]; committed_tx uuid[] := '{}'::uuid[];
  item_keys text[]; used_keys text[]; held_keys text[]; closed_from timestamptz[]; closed_to timestamptz[];
  seen_refs text[] := '{}'::text[]; item_refs text[]; seen_keys text[] := '{}'::text[];
  -- accepted[n]: item n passed (a flag per item, so the writes below test it in constant time).
  accepted boolean[] := array_fill(false, ARRAY[jsonb_array_length(items)]); accepted_count int := 0;
  created int := 0; ref_count int := 0; key_count int := 0; written int; refused boolean := false;
  results jsonb[] := '{}'::jsonb[];
  item jsonb; ps jsonb; c jsonb; r jsonb; idem jsonb; err jsonb; unknown jsonb; touched jsonb;
  k int; j int; ref_id text; key_id text; vd timestamptz;
  -- One item's legs: its new postings, then the pending legs it releases (sign -1) or posts.
  l_acc text[]; l_amt numeric[]; l_dir text[]; l_pending boolean[];
  d_acc text[]; d_pdr numeric[]; d_pcr numeric[]; d_qdr numeric[]; d_qcr numeric[];
  before numeric; after numeric;
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

  void_ids := ARRAY(SELECT jsonb_array_elements_text(x->'voids')::bigint FROM jsonb_array_elements(items) x WHERE x ? 'voids');
  commit_ids := ARRAY(SELECT (x->>'commit')::uuid FROM jsonb_array_elements(items) x WHERE x ? 'commit');
  o_id := '{}';
  IF cardinality(void_ids) > 0 OR cardinality(commit_ids) > 0 THEN
    SELECT coalesce(array_agg(o.id ORDER BY o.id), '{}'), array_agg(o.transaction_id ORDER BY o.id), array_agg(o.account_id ORDER BY o.id),
      array_agg(o.amount ORDER BY o.id), array_agg(o.direction ORDER BY o.id)
    INTO o_id, o_tx, o_acc, o_amt, o_dir
    FROM (
      SELECT p.id, p.transaction_id, p.account_id, p.amount, p.direction FROM postings p
      WHERE p.ledger_id = ledger AND p.pending AND p.voided_at IS NULL AND (p.id = ANY(void_ids) OR p.transaction_id = ANY(commit_ids))
      ORDER BY p.id
      FOR UPDATE
    ) o;
  END IF;

  -- Planned afresh on every call (EXECUTE): a plan cached while the table was small keeps scanning the
  -- whole ledger instead of the (ledger_id, idempotency_key) index as the ledger grows.
  item_keys := ARRAY(SELECT x->>'key' FROM jsonb_array_elements(items) x WHERE x->>'key' IS NOT NULL);
  used_keys := '{}'::text[];
  IF cardinality(item_keys) > 0 THEN
    EXECUTE 'SELECT coalesce(array_agg(idempotency_key), ''{}'') FROM transactions WHERE ledger_id = $1 AND idempotency_key = ANY($2)'
      INTO used_keys USING ledger, item_keys;
  END IF;
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
    ps := coalesce(item->'postings', '[]');
    err := NULL;
    IF item->>'key' = ANY(used_keys) THEN
      err := jsonb_build_object('error', 'key_taken');
    END IF;
    IF err IS NULL THEN
      unknown := '[]';
      FOR m IN 0 .. jsonb_array_length(ps) - 1 LOOP
        IF array_position(a_id, ps->m->>'account') IS NULL THEN unknown := unknown || to_jsonb(m); END IF;
      END LOOP;
      IF jsonb_array_length(unknown) > 0 THEN
        err := jsonb_build_object('error', 'unknown_account', 'postings', unknown);
      END IF;
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
      -- The item's legs with their signed effect: new postings add, released pending legs subtract,
      -- committed ones move from pending to posted.
      l_acc := '{}'; l_amt := '{}'; l_dir := '{}'; l_pending := '{}';
      FOR m IN 0 .. jsonb_array_length(ps) - 1 LOOP
        l_acc := l_acc || (ps->m->>'account'); l_amt := l_amt || (ps->m->>'amount')::numeric;
        l_dir := l_dir || (ps->m->>'direction'); l_pending := l_pending || (ps->m->>'pending')::boolean;
      END LOOP;
      item_released := '{}';
      IF item ? 'voids' OR item ? 'commit' THEN
        FOR k IN 1 .. cardinality(o_id) LOOP
          CONTINUE WHEN o_id[k] = ANY(released);
          IF item ? 'voids' AND item->'voids' ? o_id[k]::text THEN
            l_acc := l_acc || o_acc[k]; l_amt := l_amt || -o_amt[k]; l_dir := l_dir || o_dir[k]; l_pending := l_pending || true;
            item_released := item_released || o_id[k];
          ELSIF o_tx[k] = (item->>'commit')::uuid THEN
            l_acc := l_acc || ARRAY[o_acc[k], o_acc[k]]; l_amt := l_amt || ARRAY[-o_amt[k], o_amt[k]];
            l_dir := l_dir || ARRAY[o_dir[k], o_dir[k]]; l_pending := l_pending || ARRAY[true, false];
            item_released := item_released || o_id[k];
          END IF;
        END LOOP;
      END IF;
      -- Each account's change, in the order the legs first name it.
      d_acc := '{}'; d_pdr := '{}'; d_pcr := '{}'; d_qdr := '{}'; d_qcr := '{}';
      FOR m IN 1 .. cardinality(l_acc) LOOP
        j := array_position(d_acc, l_acc[m]);
        IF j IS NULL THEN
          d_acc := d_acc || l_acc[m]; j := cardinality(d_acc);
          d_pdr[j] := 0; d_pcr[j] := 0; d_qdr[j] := 0; d_qcr[j] := 0;
        END IF;
        IF l_pending[m] THEN
          IF l_dir[m] = 'debit' THEN d_qdr[j] := d_qdr[j] + l_amt[m]; ELSE d_qcr[j] := d_qcr[j] + l_amt[m]; END IF;
        ELSIF l_dir[m] = 'debit' THEN d_pdr[j] := d_pdr[j] + l_amt[m];
        ELSE d_pcr[j] := d_pcr[j] + l_amt[m];
        END IF;
      END LOOP;
      FOR j IN 1 .. cardinality(d_acc) LOOP
        k := array_position(a_id, d_acc[j]);
        IF k IS NULL THEN
          RAISE EXCEPTION 'account % of a released leg was not locked', d_acc[j];
        END IF;
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
      refused := refused OR err->>'error' <> 'key_taken';
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
    accepted[n] := true;
    accepted_count := accepted_count + 1;
    released := released || item_released;
    IF item ? 'commit' THEN
      committed := committed || item_released;
      committed_tx := committed_tx || (item->>'commit')::uuid;
    ELSE
      voided := voided || item_released;
      created := created + 1;
    END IF;
    IF item->>'key' IS NOT NULL THEN used_keys := used_keys || (item->>'key'); END IF;
    seen_refs := seen_refs || item_refs;
    ref_count := ref_count + cardinality(item_refs);
    IF key_id IS NOT NULL THEN
      seen_keys := seen_keys || key_id;
      IF idem->>'body' IS NOT NULL THEN key_count := key_count + 1; END IF;
    END IF;
    results := array_append(results, jsonb_build_object('ok', true, 'touched', touched));
  END LOOP;

  IF dry_run OR accepted_count = 0 OR (atomic AND refused) THEN RETURN to_jsonb(results); END IF;

  IF created > 0 THEN
    INSERT INTO transactions (id, ledger_id, idempotency_key, kind, reverses, refund_amount, refund_currency, metadata, value_date,
      booking_date, created_at, updated_at)
    SELECT (x.i->>'id')::uuid, ledger, x.i->>'key', x.i->>'kind', (x.i->>'reverses')::uuid, (x.i->>'refund_amount')::numeric,
      x.i->>'refund_currency', x.i->'metadata', (x.i->>'value_date')::timestamptz, (x.i->>'created_at')::timestamptz,
      (x.i->>'created_at')::timestamptz, (x.i->>'created_at')::timestamptz
    FROM jsonb_array_elements(items) WITH ORDINALITY AS x(i, n)
    WHERE accepted[x.n] AND x.i ? 'id'
    ORDER BY x.n
    ON CONFLICT (ledger_id, idempotency_key) DO NOTHING;
    GET DIAGNOSTICS written = ROW_COUNT;
    IF written < created THEN
      RAISE EXCEPTION 'a transaction key was used by a concurrent write' USING ERRCODE = 'BK002';
    END IF;
  END IF;

  IF ref_count > 0 THEN
    INSERT INTO transaction_external_refs (id, ledger_id, transaction_id, rail, ref_kind, value, metadata, created_at)
    SELECT (y.r->>'id')::uuid, ledger, (x.i->>'id')::uuid, y.r->>'rail', y.r->>'kind', y.r->>'value', y.r->'metadata',
      (x.i->>'created_at')::timestamptz
    FROM jsonb_array_elements(items) WITH ORDINALITY AS x(i, n), jsonb_array_elements(x.i->'refs') WITH ORDINALITY AS y(r, m)
    WHERE accepted[x.n]
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
    WHERE accepted[x.n] AND x.i->'idem'->>'body' IS NOT NULL
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

  IF created > 0 THEN
    INSERT INTO postings (id, ledger_id, transaction_id, account_id, amount, currency, direction, pending, tags, value_date, created_at)
    OVERRIDING SYSTEM VALUE
    SELECT (y.p->>'id')::bigint, ledger, (x.i->>'id')::uuid, y.p->>'account', (y.p->>'amount')::numeric, y.p->>'currency',
      y.p->>'direction', (y.p->>'pending')::boolean, y.p->'tags', (x.i->>'value_date')::timestamptz, (x.i->>'created_at')::timestamptz
    FROM jsonb_array_elements(items) WITH ORDINALITY AS x(i, n), jsonb_array_elements(x.i->'postings') WITH ORDINALITY AS y(p, m)
    WHERE accepted[x.n] AND x.i ? 'id'
    ORDER BY x.n, y.m;
  END IF;
  IF cardinality(voided) > 0 THEN
    UPDATE postings SET voided_at = clock_timestamp() WHERE ledger_id = ledger AND id = ANY(voided);
  END IF;
  IF cardinality(committed) > 0 THEN
    UPDATE postings SET pending = false, committed_at = clock_timestamp() WHERE ledger_id = ledger AND id = ANY(committed);
  END IF;
  IF cardinality(committed_tx) > 0 THEN
    UPDATE transactions SET updated_at = clock_timestamp() WHERE ledger_id = ledger AND id = ANY(committed_tx);
  END IF;

  -- The rows are locked, so the running totals are the new values.
  UPDATE account_balances b SET posted_debits = v.pdr, posted_credits = v.pcr, pending_debits = v.qdr, pending_credits = v.qcr
  FROM unnest(a_id, p_dr, p_cr, q_dr, q_cr, moved) AS v(id, pdr, pcr, qdr, qcr, moved)
  WHERE v.moved AND b.ledger_id = ledger AND b.account_id = v.id;

  -- Each item's events carry its request's trace context (a JSON null, tracing off, stores SQL NULL).
  INSERT INTO events (organization_id, ledger_id, mode, type, resource_id, data, trace_context)
  SELECT (batch->>'organization')::uuid, ledger, batch->>'mode', y.e->>'type', y.e->>'resource_id', y.e->'data',
    nullif(x.i->'trace_context', 'null'::jsonb)
  FROM jsonb_array_elements(items) WITH ORDINALITY AS x(i, n), jsonb_array_elements(coalesce(x.i->'events', '[]')) WITH ORDINALITY AS y(e, m)
  WHERE accepted[x.n]
  ORDER BY x.n, y.m;

  RETURN to_jsonb(results);
END
$fn$;
