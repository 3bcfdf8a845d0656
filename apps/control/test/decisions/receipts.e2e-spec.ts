import canonicalize from 'canonicalize';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { decodeJwt } from 'jose';
import request from 'supertest';
import { canonicalJson } from '@bursar/crypto';
import { suiteStack } from '@bursar/testing';
import { frameHash, EvaluatedAction } from '../../src/decisions/decision';
import { policyVersion } from '../../src/policies/policy-snapshot';
import type { PolicySnapshot } from '../../src/policies/policy-compiler';
import { bearer } from '../control-fixtures';
import { act, agentWithPolicy, pay, startDecisionStack } from '../decision-fixtures';

/** docs/receipts.md is what executors follow: its vectors must hold and its recipe must match live receipts. */
const doc = readFileSync(path.join(__dirname, '../../../../docs/receipts.md'), 'utf8');
const vectors = [...doc.matchAll(/```json receipt-vector\n([\s\S]*?)```/g)].map(
  ([, body]) => JSON.parse(body) as { kind: 'frame_hash' | 'policy_version'; input: unknown; canonical: string; digest: string },
);

/** The doc's recipe written independently of the service's code: RFC 8785 text, SHA-256, hex. */
const recipe = (prefix: string, value: unknown) => prefix + createHash('sha256').update(canonicalize(value) as string, 'utf8').digest('hex');

describe('receipts (docs/receipts.md)', () => {
  it('has frame_hash and policy_version vectors, each matching the implementation and the recipe', () => {
    expect(vectors.map((v) => v.kind)).toEqual(['frame_hash', 'frame_hash', 'policy_version']);
    for (const v of vectors) {
      expect(canonicalJson(v.input)).toBe(v.canonical);
      const digest = v.kind === 'frame_hash' ? frameHash(v.input as EvaluatedAction) : policyVersion(v.input as PolicySnapshot[]);
      expect(digest).toBe(v.digest);
      expect(recipe(v.kind === 'frame_hash' ? 'fh_' : 'pv_', v.input)).toBe(v.digest);
    }
  });

  describe('against live decisions', () => {
    const s = suiteStack(() => startDecisionStack('receipts'));

    it('an executor recomputes frame_hash and policy_version of a payment and an action from what it sent and received', async () => {
      const agent = await agentWithPolicy(s, { per_transaction_cap_cents: 5_000 }, 10_000);
      const metadata = { order: { id: 'A-1', lines: [2, 0.5] }, note: 'café ☕' };
      const payment = (await pay(s.t.app, agent, { amount_cents: 1_250, counterparty: 'acme-supplies', metadata }).expect(201)).body;
      const action = (await act(s.t.app, agent, { action_type: 'api.call', cost_cents: 40 }).expect(201)).body;
      const frames = [
        { body: payment, frame: { action_type: 'payment.create', resource: 'acme-supplies', cost_cents: 1_250, metadata } },
        { body: action, frame: { action_type: 'api.call', resource: null, cost_cents: 40, metadata: {} } },
      ];
      for (const { body, frame } of frames) {
        const claims = decodeJwt(body.cosignature.token ?? body.cosignature);
        const full = { ...frame, workspace_id: claims.workspace_id, agent_id: body.data.agent_id, budget_id: agent.budgetId, currency: body.data.currency };
        expect(recipe('fh_', full)).toBe(body.decision.frame_hash);
        expect(claims.frame_hash).toBe(body.decision.frame_hash);
        expect(recipe('pv_', body.decision.policy_snapshot)).toBe(body.decision.policy_version);
        const version = await request(s.t.app.getHttpServer())
          .get(`/control/v1/workspaces/${s.slug}/policy_versions/${body.decision.policy_version}`)
          .set(bearer(s.owner))
          .expect(200);
        expect(recipe('pv_', version.body.data.rules)).toBe(body.decision.policy_version);
      }
    });
  });
});
