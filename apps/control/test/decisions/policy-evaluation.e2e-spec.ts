import { createHash } from 'node:crypto';
import request from 'supertest';
import { suiteStack } from '@bursar/testing';
import { bearer } from '../control-fixtures';
import { act, agentWithPolicy, simulate, startDecisionStack } from '../decision-fixtures';

type Case = [string, Record<string, unknown>, Record<string, unknown>, Record<string, unknown>];

const cond = (field: string, operator: string, value?: unknown) => ({
  rules: [{ kind: 'condition', rule_name: 'blocked', when: value === undefined ? { field, operator } : { field, operator, value } }],
});

describe('policy evaluation', () => {
  const s = suiteStack(() => startDecisionStack('evaluation'));

  const decideWith = async (policy: Record<string, unknown> | null, action: Record<string, unknown>, agentFields: Record<string, unknown> = {}) => {
    const agent = await agentWithPolicy(s, policy, 100_000, agentFields);
    return (await simulate(s.t.app, agent, { action_type: 'email.send', ...action }).expect(200)).body.data;
  };

  it.each<Case>([
    ['cost_cap', { rules: [{ kind: 'cost_cap', max_cents: 500 }] }, { cost_cents: 501 }, { rule: 'cost_cap', detail: { limit_cents: 500, requested_cents: 501 }, remedy: expect.objectContaining({ kind: 'lower_amount', max_cents: 500 }) }],
    ['approval_threshold holds', { rules: [{ kind: 'approval_threshold', above_cents: 100 }] }, { cost_cents: 101 }, { outcome: 'requires_approval', rule: 'approval_threshold', detail: { threshold_cents: 100, requested_cents: 101 }, remedy: expect.objectContaining({ kind: 'approve', max_cents: 100 }) }],
    ['action_allowlist', { rules: [{ kind: 'action_allowlist', allow: ['payment.*', 'search'] }] }, {}, { rule: 'action_allowlist', remedy: expect.objectContaining({ kind: 'allow_action', action_type: 'email.send' }) }],
    ['resource_allowlist', { rules: [{ kind: 'resource_allowlist', allow: ['a.com'] }] }, { resource: 'b.com' }, { rule: 'resource_allowlist', remedy: expect.objectContaining({ kind: 'allow_resource', resource: 'b.com' }) }],
    ['counterparty_allowlist column', { counterparty_allowlist: ['a.com'] }, { resource: 'b.com' }, { rule: 'counterparty_allowlist' }],
    ['per_transaction_cap column', { per_transaction_cap_cents: 10 }, { cost_cents: 11 }, { rule: 'per_transaction_cap', detail: { limit_cents: 10, requested_cents: 11 } }],
    ['approval_threshold column', { approval_threshold_cents: 10 }, { cost_cents: 11 }, { outcome: 'requires_approval', rule: 'approval_threshold' }],
    ['custom rule_name', { rules: [{ kind: 'cost_cap', max_cents: 1, rule_name: 'tiny_spend' }] }, { cost_cents: 2 }, { rule: 'tiny_spend' }],
    ['no policy fails closed', null as unknown as Record<string, unknown>, {}, { rule: 'no_policy', policy_version: 'pv_none', remedy: expect.objectContaining({ kind: 'create_policy' }) }],
    ['allowlist mode with no allow', { mode: 'allowlist', rules: [{ kind: 'condition', effect: 'allow', when: { field: 'resource', operator: 'eq', value: 'x' } }] }, { resource: 'y' }, { rule: 'not_allowlisted' }],
    ['session budget', { per_transaction_cap_cents: 1_000_000 }, { cost_cents: 100_001 }, { rule: 'session_budget', detail: { requested_cents: 100_001, remaining_cents: 100_000 }, remedy: expect.objectContaining({ kind: 'lower_amount', max_cents: 100_000 }) }],
    ['condition require_approval', { rules: [{ kind: 'condition', effect: 'require_approval', when: { field: 'metadata.risk', operator: 'eq', value: 'high' } }] }, { metadata: { risk: 'high' } }, { outcome: 'requires_approval', rule: 'condition', remedy: null }],
  ])('%s', async (_name, policy, action, expected) => {
    expect(await decideWith(policy, action)).toMatchObject({ outcome: 'denied', ...expected });
  });

  it('denies actions outside the key scopes (runtime_scope, grant_scope remedy)', async () => {
    const d = await decideWith({ per_transaction_cap_cents: 100 }, { action_type: 'email.send' }, { scopes: ['payment.*'] });
    expect(d).toMatchObject({ outcome: 'denied', rule: 'runtime_scope', remedy: { kind: 'grant_scope', action_type: 'email.send' } });
    expect((await decideWith({ per_transaction_cap_cents: 100 }, { action_type: 'payment.create' }, { scopes: ['payment.*'] })).outcome).toBe('allowed');
  });

  it.each<[string, string, unknown, Record<string, unknown>, boolean]>([
    ['eq', 'resource', 'x', { resource: 'x' }, true],
    ['eq', 'resource', 'x', { resource: 'y' }, false],
    ['ne', 'resource', 'x', { resource: 'y' }, true],
    ['ne', 'resource', 'x', {}, false],
    ['gt', 'cost_cents', 10, { cost_cents: 11 }, true],
    ['gt', 'cost_cents', 10, { cost_cents: 10 }, false],
    ['gte', 'cost_cents', 10, { cost_cents: 10 }, true],
    ['lt', 'cost_cents', 10, { cost_cents: 9 }, true],
    ['lte', 'cost_cents', 10, { cost_cents: 11 }, false],
    ['gt', 'metadata.label', 1, { metadata: { label: 'text' } }, false],
    ['in', 'resource', ['a', 'b'], { resource: 'b' }, true],
    ['not_in', 'resource', ['a', 'b'], { resource: 'c' }, true],
    ['not_in', 'resource', ['a', 'b'], { resource: 'a' }, false],
    ['contains', 'metadata.tags', 'urgent', { metadata: { tags: ['urgent', 'x'] } }, true],
    ['contains', 'resource', 'evil', { resource: 'www.evil.com' }, true],
    ['starts_with', 'resource', 'https://', { resource: 'https://x' }, true],
    ['ends_with', 'resource', '.ru', { resource: 'shop.ru' }, true],
    ['ends_with', 'resource', '.ru', { resource: 'shop.com' }, false],
    ['exists', 'metadata.order.id', undefined, { metadata: { order: { id: 7 } } }, true],
    ['exists', 'metadata.order.id', undefined, { metadata: { order: {} } }, false],
    ['eq', 'metadata.deep.path.value', 3, { metadata: { deep: { path: { value: 3 } } } }, true],
    ['eq', 'currency', 'USD', {}, true],
    ['eq', 'agent_mode', 'test', {}, true],
    ['eq', 'action_type', 'email.send', {}, true],
  ])('operator %s on %s (%j) against %j matches: %s', async (operator, field, value, action, matches) => {
    const d = await decideWith(cond(field, operator, value), action);
    expect(d.outcome).toBe(matches ? 'denied' : 'allowed');
    if (matches) expect(d).toMatchObject({ rule: 'blocked', detail: { effect: 'deny' }, remedy: null });
  });

  it('reads agent_id and budget_id, and combines with all_of, any_of and not', async () => {
    const agent = await agentWithPolicy(s, { per_transaction_cap_cents: 100 });
    const patch = (rules: unknown[]) =>
      request(s.t.app.getHttpServer()).patch(`/control/v1/workspaces/${s.slug}/policies/${agent.policyId}`).set(bearer(s.owner)).send({ rules }).expect(200);
    const outcome = async (body: Record<string, unknown>) => (await simulate(s.t.app, agent, { action_type: 'email.send', ...body }).expect(200)).body.data.outcome;
    await patch([{ kind: 'condition', when: { all_of: [{ field: 'agent_id', operator: 'eq', value: agent.id }, { field: 'budget_id', operator: 'eq', value: agent.budgetId }] } }]);
    expect(await outcome({})).toBe('denied');
    await patch([{ kind: 'condition', when: { any_of: [{ field: 'resource', operator: 'eq', value: 'a' }, { not: { field: 'cost_cents', operator: 'lt', value: 50 } }] } }]);
    expect(await outcome({ resource: 'b', cost_cents: 10 })).toBe('allowed');
    expect(await outcome({ resource: 'a', cost_cents: 10 })).toBe('denied');
    expect(await outcome({ resource: 'b', cost_cents: 60 })).toBe('denied');
  });

  it('lets the first deny win, holds only when nothing denies, and never lets allow override deny', async () => {
    const rules = [
      { kind: 'approval_threshold', above_cents: 10 },
      { kind: 'condition', effect: 'allow', when: { field: 'resource', operator: 'eq', value: 'ok' } },
      { kind: 'cost_cap', max_cents: 100, rule_name: 'first_cap' },
      { kind: 'cost_cap', max_cents: 50, rule_name: 'second_cap' },
    ];
    expect(await decideWith({ rules }, { resource: 'ok', cost_cents: 200 })).toMatchObject({ outcome: 'denied', rule: 'first_cap' });
    expect(await decideWith({ rules }, { resource: 'ok', cost_cents: 20 })).toMatchObject({ outcome: 'requires_approval', rule: 'approval_threshold' });
    const d = await decideWith({ rules }, { resource: 'ok', cost_cents: 5 });
    expect(d).toMatchObject({ outcome: 'allowed', rule: null, detail: {}, remedy: null, headroom: { per_action_cap_cents: 50, session_remaining_cents: 100_000 } });
  });

  it('scopes rules with action_types (exact and namespace)', async () => {
    const rules = [{ kind: 'cost_cap', max_cents: 10, action_types: ['payment.*'] }];
    expect((await decideWith({ rules }, { action_type: 'email.send', cost_cents: 50 })).outcome).toBe('allowed');
    expect((await decideWith({ rules }, { action_type: 'payment.refund', cost_cents: 50 })).outcome).toBe('denied');
  });

  it('allowlist mode passes when an allow rule matches', async () => {
    const policy = { mode: 'allowlist', rules: [{ kind: 'action_allowlist', allow: ['email.send'] }] };
    expect((await decideWith(policy, {})).outcome).toBe('allowed');
    expect(await decideWith(policy, { action_type: 'sms.send' })).toMatchObject({ outcome: 'denied', rule: 'action_allowlist' });
    expect((await decideWith({ mode: 'allowlist', rules: [{ kind: 'resource_allowlist', allow: [] }] }, {})).rule).toBe('not_allowlisted');
  });

  it('counts windows across recorded intents: spend_window, velocity column, monthly cap and rate_limit', async () => {
    const agent = await agentWithPolicy(s, {
      velocity_cap_cents: 1_000,
      velocity_window_seconds: 3600,
      rules: [
        { kind: 'monthly_spend_cap', max_cents: 1_500 },
        { kind: 'rate_limit', max_actions: 3, window_seconds: 60, action_types: ['search'] },
        { kind: 'spend_window', max_cents: 800, window_seconds: 60, action_types: ['ads.*'], rule_name: 'ads_window' },
      ],
    });
    await act(s.t.app, agent, { action_type: 'email.send', cost_cents: 700 }).expect(201);
    const velocity = (await act(s.t.app, agent, { action_type: 'email.send', cost_cents: 400 }).expect(403)).body.decision;
    expect(velocity).toMatchObject({ rule: 'velocity_cap', detail: { limit_cents: 1_000, window_seconds: 3600, spent_cents: 700, requested_cents: 400 }, remedy: { kind: 'lower_amount', max_cents: 300 } });
    await act(s.t.app, agent, { action_type: 'ads.buy', cost_cents: 300 }).expect(201);
    const full = (await act(s.t.app, agent, { action_type: 'ads.buy', cost_cents: 1 }).expect(403)).body.decision;
    expect(full).toMatchObject({ rule: 'velocity_cap', remedy: { kind: 'wait', retry_after_seconds: expect.any(Number) } });
    expect(full.headroom).toMatchObject({ velocity_remaining_cents: 0 });
    for (let i = 0; i < 3; i++) await act(s.t.app, agent, { action_type: 'search' }).expect(201);
    const rate = (await act(s.t.app, agent, { action_type: 'search' }).expect(403)).body.decision;
    expect(rate).toMatchObject({ rule: 'rate_limit', detail: { max_actions: 3, window_seconds: 60, count: 3 }, remedy: { kind: 'wait', retry_after_seconds: expect.any(Number) } });
  });

  it('denies a monthly cap and a named spend window', async () => {
    const agent = await agentWithPolicy(s, { rules: [{ kind: 'spend_window', max_cents: 500, window_seconds: 60, rule_name: 'minute_window' }, { kind: 'monthly_spend_cap', max_cents: 400 }] });
    await act(s.t.app, agent, { action_type: 'email.send', cost_cents: 400 }).expect(201);
    const monthly = (await act(s.t.app, agent, { action_type: 'email.send', cost_cents: 50 }).expect(403)).body.decision;
    expect(monthly).toMatchObject({ rule: 'monthly_spend_cap', remedy: { kind: 'wait', retry_after_seconds: null } });
    const agent2 = await agentWithPolicy(s, { rules: [{ kind: 'spend_window', max_cents: 500, window_seconds: 60, rule_name: 'minute_window' }] });
    await act(s.t.app, agent2, { action_type: 'email.send', cost_cents: 450 }).expect(201);
    expect((await act(s.t.app, agent2, { action_type: 'email.send', cost_cents: 100 }).expect(403)).body.decision.rule).toBe('minute_window');
  });

  it('denies an exhausted budget with raise_budget and a closed one with reopen_budget (session_inactive)', async () => {
    const agent = await agentWithPolicy(s, { per_transaction_cap_cents: 1_000 }, 1_000);
    await act(s.t.app, agent, { action_type: 'email.send', cost_cents: 1_000 }).expect(201);
    const exhausted = (await act(s.t.app, agent, { action_type: 'email.send', cost_cents: 1 }).expect(403)).body.decision;
    expect(exhausted).toMatchObject({ rule: 'session_inactive', detail: { status: 'exhausted' }, remedy: { kind: 'raise_budget' } });
    const agent2 = await agentWithPolicy(s, { per_transaction_cap_cents: 1_000 }, 1_000);
    await request(s.t.app.getHttpServer()).post(`/control/v1/agent/budgets/${agent2.budgetId}/close`).set(bearer(agent2.key)).expect(200);
    const closed = (await act(s.t.app, agent2, { action_type: 'email.send', cost_cents: 1 }).expect(403)).body.decision;
    expect(closed).toMatchObject({ rule: 'session_inactive', detail: { status: 'closed' }, remedy: { kind: 'reopen_budget' } });
  });

  it('binds the frame hash to the request, metadata included', async () => {
    const agent = await agentWithPolicy(s, { per_transaction_cap_cents: 1_000 });
    const hash = async (metadata: object) => (await simulate(s.t.app, agent, { action_type: 'email.send', metadata }).expect(200)).body.data.frame_hash;
    expect(await hash({ a: 1, b: 2 })).toBe(await hash({ b: 2, a: 1 }));
    expect(await hash({ a: 1 })).not.toBe(await hash({ a: 2 }));
    // Recomputed the way the OpenAPI document tells an executor to.
    const frame = { action_type: 'email.send', agent_id: agent.id, budget_id: agent.budgetId, cost_cents: 0, currency: 'USD', metadata: { a: 1, b: { c: 2 } }, resource: null, workspace_id: s.workspaceId };
    expect(await hash({ b: { c: 2 }, a: 1 })).toBe(`fh_${createHash('sha256').update(JSON.stringify(frame)).digest('hex')}`);
    const doc = (await request(s.t.app.getHttpServer()).get('/control/v1/openapi.json').expect(200)).text;
    expect(doc).toContain('frame_hash is \\"fh_\\"');
  });
});
