import fc from 'fast-check';
import { DataSource } from 'typeorm';
import { suiteStack } from '@bursar/testing';
import { COUNTED_STATES, countedStateSql } from '../../src/decisions/counted-intents';
import type { Decision } from '../../src/decisions/decision';
import { replayDecision } from '../../src/decisions/decision-engine';
import { frameOf, RecordedInputs } from '../../src/decisions/decision-inputs';
import { Intent } from '../../src/decisions/intent.entity';
import { actionTypeLikePatterns, actionTypeMatcher } from '../../src/policies/action-types';
import { PolicyEngine } from '../../src/policies/policy-engine.service';
import { PolicyVersionsService } from '../../src/policy-versions/policy-versions.service';
import { act, agentWithPolicy, startDecisionStack } from '../decision-fixtures';

/**
 * Where a rule exists in TypeScript and in SQL, the two forms agree on real Postgres: the action-type
 * matcher and the LIKE patterns windows are measured with, the counted states and the window index,
 * and the settlement the single-statement write records against `applySettlement`.
 */
describe('decision agreement (TypeScript and SQL)', () => {
  const s = suiteStack(() => startDecisionStack('decision_agreement'));
  const db = () => s.t.app.get(DataSource);

  it('LIKE ANY over the patterns selects exactly the action types the matcher matches', async () => {
    const segment = fc.constantFrom('pay', 'pay_out', 'payxout', 'payment', 'payments', 'create', 'a_b', 'axb', 'x%y', 'b\\c');
    const actionType = fc.array(segment, { minLength: 1, maxLength: 3 }).map((parts) => parts.join('.'));
    const patterns = fc.array(fc.oneof(actionType, actionType.map((t) => `${t}.*`), fc.constant('*')), { minLength: 1, maxLength: 3 });
    const cases = fc.sample(fc.tuple(patterns, fc.array(actionType, { minLength: 1, maxLength: 8 })), { seed: 16, numRuns: 200 });
    for (const [list, types] of cases) {
      const likes = actionTypeLikePatterns(list);
      const rows: { t: string; m: boolean }[] = await db().query(`SELECT t, ($2::text[] IS NULL OR t LIKE ANY ($2::text[])) AS m FROM unnest($1::text[]) AS t`, [types, likes]);
      const match = actionTypeMatcher(list);
      expect(rows.map((r) => [list, r.t, r.m])).toEqual(types.map((t) => [list, t, match(t)]));
    }
  });

  it('the window index covers exactly the counted states, so window sums use it', async () => {
    const [{ predicate }] = await db().query(`SELECT pg_get_expr(i.indpred, i.indrelid) AS predicate FROM pg_index i WHERE i.indexrelid = 'intents_window'::regclass`);
    expect([...(predicate as string).matchAll(/'(\w+)'::text/g)].map((m) => m[1])).toEqual([...COUNTED_STATES]);
    const plan: { 'QUERY PLAN': string }[] = await db().query(
      `EXPLAIN SELECT count(*) FROM intents WHERE agent_id = gen_random_uuid() AND ${countedStateSql('state')} AND created_at >= now() - interval '1 minute'`,
    );
    expect(plan.map((p) => p['QUERY PLAN']).join('\n')).toContain('intents_window');
  });

  it('the single-statement write records the settlement applySettlement gives, under concurrent reservations of one budget', async () => {
    const agent = await agentWithPolicy(s, { per_transaction_cap_cents: 50_000 }, 10_000);
    const answers = await Promise.all(Array.from({ length: 12 }, () => act(s.t.app, agent, { action_type: 'email.send', cost_cents: 1_000 })));
    expect(answers.filter((r) => r.status === 201)).toHaveLength(10);
    const intents = await db().getRepository(Intent).findBy({ agent_id: agent.id });
    const allowed = intents.filter((i) => i.state === 'pending');
    const engine = s.t.app.get(PolicyEngine);
    const versions = s.t.app.get(PolicyVersionsService);
    for (const intent of allowed) {
      const stored = intent.decision as unknown as Decision;
      const inputs = intent.decision_inputs as unknown as RecordedInputs;
      expect(inputs.settlement).toEqual({ reserved_before_cents: stored.headroom.session_remaining_cents });
      const policies = engine.prepare((await versions.get(s.workspaceId, stored.policy_version)).rules);
      expect({ ...replayDecision(policies, frameOf(intent), inputs), id: stored.id }).toEqual(stored);
      // The answer is the stored decision.
      expect(answers.find((r) => r.body.data?.id === intent.id)?.body.decision).toEqual(stored);
    }
    // Each reservation saw what the ones before it left.
    expect(allowed.map((i) => (i.decision as unknown as Decision).headroom.session_remaining_cents).sort((a, b) => b - a)).toEqual(
      Array.from({ length: 10 }, (_, k) => 10_000 - k * 1_000),
    );
  });
});
