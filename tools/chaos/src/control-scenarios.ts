import { call, check, Check, ScenarioResult, sleep, Tally } from './chaos-kit';
import { ChaosStack, COSIGN_TIMING } from './chaos-stack';
import { authorizeMany, checkBudget } from './control-load';
import { Timing } from './ledger-scenarios';

/** 5. Authorizations of 150 cents on one budget (two thirds of them fit), 50 in flight, while Postgres is stopped and started. */
export async function controlUnderRestart(stack: ChaosStack, t: Timing): Promise<ScenarioResult> {
  const started = Date.now();
  const count = t.short ? 300 : 1000;
  const agent = await stack.seedControlAgent('budget', Math.floor((count * 2) / 3) * 150);
  let progress = 0;
  let loading = true;
  const run = authorizeMany(stack, agent, {
    count,
    concurrency: 50,
    amountCents: 150,
    retryUntil: () => (loading ? Infinity : Date.now() - 1),
    onProgress: (n) => (progress = n),
  });
  while (progress < count / 4) await sleep(20);
  await stack.pg.stop();
  const downAt = Date.now();
  const checks: Check[] = [];
  const probe = await call('POST', `${stack.controls[0].url}/control/v1/agent/payment_intents`, {
    headers: { Authorization: `Bearer ${agent.key}` },
    body: { budget_id: agent.budgetId, amount_cents: 150, counterparty: 'acme', idempotency_key: `probe-${Date.now()}` },
  });
  const ready = await call('GET', `${stack.controls[0].url}/readyz`, { timeoutMs: 5000 });
  checks.push(check('control /readyz fails while Postgres is down', ready.status === 503, `answered ${ready.status}`));
  checks.push(check('control answers 503 within 2 s while Postgres is down', probe.status === 503 && probe.ms <= 2000, `an authorization answered ${probe.status} in ${probe.ms} ms`));
  await sleep(Math.max(0, t.downMs - (Date.now() - downAt)));
  await stack.pg.startAgain();
  const fault = `pg_ctl stop -m fast after ${progress} of ${count} answered, down ${((Date.now() - downAt) / 1000).toFixed(1)} s, start`;
  // Retries keep going until every authorization is answered (bounded by the retry window).
  const retryDeadline = Date.now() + t.retryMs + t.loadMs;
  const watchdog = setInterval(() => {
    if (Date.now() > retryDeadline) loading = false;
  }, 200);
  const { authorizations, tally, uncoded5xx, slow } = await run;
  clearInterval(watchdog);
  await stack.reconnect();
  const books = await checkBudget(stack, agent, authorizations, t.short ? 100 : 400);
  return {
    name: `control: ${count} authorizations on one budget, 50 in flight, Postgres restarted`,
    replicas: stack.replicas,
    seconds: (Date.now() - started) / 1000,
    faults: [fault],
    tally,
    lost: books.lost,
    duplicated: books.duplicated,
    partial: books.partial,
    figures: { ...books.figures, 'consume answers': books.consumeTally.toString(), 'answers slower than 2 s': slow },
    checks: [
      check('no 500 and no hung request', tally.count((s) => s === '500' || s === 'timeout') === 0, `${tally.count((s) => s === '500')} answered 500, ${tally.count((s) => s === 'timeout')} unanswered within 15 s`),
      check('5xx answers carry an error code', uncoded5xx === 0, `${uncoded5xx} 5xx answers with code null`),
      ...checks,
      ...books.checks,
    ],
  };
}

/** Polls `probe` until `done` (or `timeoutMs`); the ms it took, or Infinity. */
async function within(probe: () => Promise<boolean>, timeoutMs: number): Promise<number> {
  const started = Date.now();
  while (!(await probe())) {
    if (Date.now() - started > timeoutMs) return Infinity;
    await sleep(50);
  }
  return Date.now() - started;
}

function kidOf(jws: string): string {
  return JSON.parse(Buffer.from(jws.split('.')[0], 'base64url').toString()).kid;
}

/**
 * 6. Per-process caches across replicas: each change is made through replica 0 (or the operator
 * CLI, or straight in the database, which neither replica hears of) and replica 1 is asked until
 * it reflects it. Bounds: organizations at once (LISTEN/NOTIFY), OAuth clients at once (not
 * cached), agent keys 2 s (TTL; decisions re-read the agent), policies at once (read by every
 * decision), cosigning keys 30 s (each replica reloads them on its own clock).
 */
export async function replicaCaches(stack: ChaosStack, _t: Timing): Promise<ScenarioResult> {
  const started = Date.now();
  const tally = new Tally();
  const checks: Check[] = [];
  const figures: Record<string, string | number> = {};
  const faults: string[] = [];
  const [, other] = [stack.ledgers[0], stack.ledgers[1]];
  let n = 0;
  const write = async (replica: number) => {
    const a = await stack.ledgerCall('POST', '/transactions', { postings: [
      { account: 'usd:cash', amount: '1', currency: 'USD', direction: 'debit' },
      { account: 'usd:bank', amount: '1', currency: 'USD', direction: 'credit' },
    ] }, replica, { 'Idempotency-Key': `cache-${Date.now()}-${n++}` });
    tally.add(a);
    return a;
  };

  // Organizations: suspension by the operator CLI.
  await write(1);
  await stack.ledgerAdmin('suspend-organization', '--organization', stack.organizationId);
  faults.push('organization suspended (CLI)');
  const suspended = await within(async () => (await write(1)).body?.error?.code === 'tenant_suspended', 10_000);
  checks.push(check('ledger: a suspension reaches the other replica at once', suspended <= 1000, `${other.name} refused writes ${suspended} ms after the CLI returned`));
  await stack.ledgerAdmin('unsuspend-organization', '--organization', stack.organizationId);
  const resumed = await within(async () => (await write(1)).status === 201, 10_000);
  checks.push(check('ledger: lifting it reaches the other replica at once', resumed <= 1000, `${other.name} accepted writes ${resumed} ms after the CLI returned`));
  figures['organization suspension seen by replica 1 (ms)'] = suspended;

  // OAuth clients: disabled through replica 0; replica 1 must stop issuing tokens at once.
  const extra = await stack.ledgerAdmin('create-client', '--organization', stack.organizationId, '--ledger', stack.ledgerId, '--mode', 'test', '--scopes', 'ledger:read');
  const issued = await stack.ledgerTokenFor(extra.client_id, extra.client_secret, 1);
  const disabled = await stack.ledgerCall('DELETE', `/oauth_clients/${extra.client_id}`, undefined, 0);
  tally.add(disabled);
  faults.push(`oauth client disabled through ledger-0 (${disabled.status})`);
  const refused = await within(async () => (await stack.ledgerTokenFor(extra.client_id, extra.client_secret, 1)).status === 401, 10_000);
  checks.push(check('ledger: a disabled client gets no token from the other replica', refused <= 1000, `${other.name} refused the client ${refused} ms after the delete`));
  const old = await call('GET', `${other.url}/ledger/v1/accounts`, { headers: { Authorization: `Bearer ${issued.token}` } });
  figures['token issued before the disable, on replica 1'] = `${old.status} (documented: issued tokens live until they expire)`;

  // Agent keys: suspended in the database, the worst case (no replica hears of it); the TTL bounds it.
  const agent = await stack.seedControlAgent('cache', 1_000_000);
  const authorize = async (replica: number) => {
    const a = await call('POST', `${stack.controls[replica].url}/control/v1/agent/payment_intents`, {
      headers: { Authorization: `Bearer ${agent.key}` },
      body: { budget_id: agent.budgetId, amount_cents: 100, counterparty: 'acme', idempotency_key: `cache-${Date.now()}-${n++}` },
    });
    tally.add(a);
    return a;
  };
  await authorize(1);
  await stack.controlDb.query(`UPDATE policies SET per_transaction_cap_cents = 50 WHERE id = $1`, [agent.policyId]);
  faults.push('policy cap lowered');
  const denied = await authorize(1);
  checks.push(check('control: a policy change applies to the next decision on every replica', denied.status === 403, `${stack.controls[1].name} answered ${denied.status} right after the change`));
  await stack.controlDb.query(`UPDATE policies SET per_transaction_cap_cents = 1000000 WHERE id = $1`, [agent.policyId]);
  await authorize(1);
  // Other agent routes trust the key cache (2 s TTL): a budget read shows how long it takes.
  const readBudget = () => call('GET', `${stack.controls[1].url}/control/v1/agent/budgets/${agent.budgetId}`, { headers: { Authorization: `Bearer ${agent.key}` } });
  await readBudget();
  await stack.controlDb.query(`UPDATE agents SET status = 'suspended' WHERE id = $1`, [agent.agentId]);
  faults.push('agent suspended');
  const cached = await within(async () => [401, 403].includes((await readBudget()).status as number), 10_000);
  checks.push(check('control: an agent suspension reaches every agent route within the 2 s cache bound', cached <= 2500, `${stack.controls[1].name} refused a budget read ${cached} ms after the change`));
  figures['agent suspension: key cache on replica 1 (ms)'] = cached;
  const locked = await within(async () => {
    const a = await authorize(1);
    return a.status === 401 || a.status === 403;
  }, 10_000);
  checks.push(check('control: an agent suspension stops its decisions on every replica at once', locked <= 500, `${stack.controls[1].name} refused a decision ${locked} ms after the change`));
  figures['agent suspension: decisions refused on replica 1 (ms)'] = locked;

  // Cosigning keys: rotated by the operator CLI; each replica reloads its keys on its own clock
  // (COSIGN_KEY_RELOAD_MS) and the new key signs only from its activation, after every replica and
  // every JWKS copy an executor may cache lists it.
  await stack.controlDb.query(`UPDATE agents SET status = 'active' WHERE id = $1`, [agent.agentId]);
  await within(async () => (await authorize(1)).status === 201, 5000);
  const reloadMs = Number(COSIGN_TIMING.COSIGN_KEY_RELOAD_MS);
  const jwksMaxAgeMs = Number(COSIGN_TIMING.COSIGN_JWKS_MAX_AGE_SECONDS) * 1000;
  const { kid: newKid, activates_at: activation } = (await stack.controlAdmin('rotate-cosign-key')) as { kid: string; activates_at: string };
  const rotatedAt = Date.now();
  const activatesIn = Date.parse(activation) - rotatedAt;
  faults.push('cosigning key rotated (CLI)');
  const signedAt = stack.controls.map(() => Infinity);
  const listedAt = stack.controls.map(() => Infinity);
  let crossVerify = 'no token signed with the new key';
  while (Date.now() - rotatedAt < activatesIn + 10_000 && [...signedAt, ...listedAt].some((at) => !Number.isFinite(at))) {
    for (const [r, control] of stack.controls.entries()) {
      if (!Number.isFinite(listedAt[r])) {
        const jwks = await call('GET', `${control.url}/.well-known/jwks.json`);
        if ((jwks.body?.keys ?? []).some((k: { kid: string }) => k.kid === newKid)) listedAt[r] = Date.now() - rotatedAt;
      }
      if (Number.isFinite(signedAt[r])) continue;
      const token = (await authorize(r)).body?.cosignature;
      if (typeof token !== 'string' || kidOf(token) !== newKid) continue;
      signedAt[r] = Date.now() - rotatedAt;
      if (crossVerify.startsWith('no token')) {
        const other = stack.controls[(r + 1) % stack.controls.length];
        const verified = await call('POST', `${other.url}/control/v1/cosign/verify`, { body: { authorization: token } });
        tally.add(verified);
        crossVerify = `${other.name} answered ${verified.status} valid=${verified.body?.data?.valid} for a token ${control.name} signed with the new key`;
      }
    }
    await sleep(250);
  }
  figures['rotated key activates after (ms)'] = activatesIn;
  figures['rotated key published by each replica (ms)'] = listedAt.join(', ');
  figures['rotated key signing on each replica (ms)'] = signedAt.join(', ');
  checks.push(check(`control: every replica publishes a rotated key within its ${reloadMs} ms reload`, Math.max(...listedAt) <= reloadMs + 1000, `after ${listedAt.join(', ')} ms`));
  checks.push(check('control: no replica signs with a rotated key before its activation', Math.min(...signedAt) >= activatesIn, `first signature after ${Math.min(...signedAt)} ms, activation after ${activatesIn} ms`));
  checks.push(check('control: every replica signs with a rotated key within 1 s of its activation', Math.max(...signedAt) <= activatesIn + 1000, `after ${signedAt.join(', ')} ms, activation after ${activatesIn} ms`));
  checks.push(check('control: a token signed with the new key verifies on every replica at once', /valid=true/.test(crossVerify), crossVerify));
  const lead = Math.min(...signedAt) - Math.max(...listedAt);
  checks.push(
    check(
      'control: every replica publishes a rotated key longer than the JWKS cache lifetime before any replica signs with it',
      lead > jwksMaxAgeMs,
      `the last replica listed it ${lead} ms before the first signature (JWKS max-age ${jwksMaxAgeMs} ms)`,
    ),
  );
  return { name: 'replicas: per-process caches invalidated across replicas', replicas: stack.replicas, seconds: (Date.now() - started) / 1000, faults, tally, lost: 0, duplicated: 0, partial: 0, figures, checks };
}
