import 'reflect-metadata';
import jsonLogic, { RulesLogic } from 'json-logic-js';
import { compilePolicies } from './policy-compiler';
import { normalizeRules } from './policy-rules';

/*
 * Policy evaluation alone, in process (run by `pnpm bench:control`): the compiled closures of 1, 10
 * and 100 condition rules against json-logic-js applying the same conditions. No rule matches, so
 * every rule runs. Prints one JSON line per size.
 */

const ITERATIONS = 200_000;

function conditions(count: number) {
  return Array.from({ length: count }, (_, i) => ({
    all_of: [
      { field: 'cost_cents', operator: 'gt', value: 1_000_000 + i },
      { field: 'metadata.customer.tier', operator: 'eq', value: `tier-${i}` },
    ],
  }));
}

function logic(count: number): RulesLogic[] {
  return Array.from({ length: count }, (_, i) => ({
    and: [{ '>': [{ var: 'cost_cents' }, 1_000_000 + i] }, { '==': [{ var: 'metadata.customer.tier' }, `tier-${i}`] }],
  }));
}

function nsPerRule(rules: number, run: () => void): number {
  const iterations = Math.max(1_000, Math.floor(ITERATIONS / rules));
  for (let i = 0; i < iterations / 10; i++) run();
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) run();
  return Number(process.hrtime.bigint() - start) / iterations / rules;
}

const subject = {
  action_type: 'payment.create',
  resource: 'acme',
  cost_cents: 1_200,
  currency: 'USD',
  agent_id: 'a',
  agent_mode: 'test',
  budget_id: 'b',
  metadata: { customer: { tier: 'gold' } },
};

for (const size of [1, 10, 100]) {
  const rules = normalizeRules(conditions(size).map((when) => ({ kind: 'condition', when })));
  const compiled = compilePolicies([{ id: 'p', mode: 'blocklist', imports: [], imported_rules: [], rules }]);
  const input = { subject, usage: [], now: Date.now() };
  const ours = nsPerRule(size, () => {
    if (compiled.evaluate(input).outcome !== 'allowed') throw new Error('a rule matched');
  });
  const expressions = logic(size);
  const theirs = nsPerRule(size, () => {
    for (const e of expressions) if (jsonLogic.apply(e, subject)) throw new Error('a rule matched');
  });
  process.stdout.write(`${JSON.stringify({ rules: size, compiled_ns_per_rule: ours, json_logic_ns_per_rule: theirs })}\n`);
}
