import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse, stringify } from 'yaml';

const root = path.resolve(__dirname, '../../..');
export const ALERTS_FILE = path.join(root, 'infra/prometheus/alerts.yml');
export const PROMETHEUS_RULE_FILE = path.join(root, 'infra/k8s/monitoring/prometheus-rule.yaml');

const HEADER = `# GENERATED from infra/prometheus/alerts.yml by \`pnpm -s ops:rules\`: edit that file, not this one.
# The same rules as a Prometheus Operator PrometheusRule.
`;

/** infra/prometheus/alerts.yml (the one home of the rules) wrapped as a PrometheusRule. */
export function prometheusRuleText(): string {
  const alerts = parse(readFileSync(ALERTS_FILE, 'utf8'));
  const rule = {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'PrometheusRule',
    metadata: { name: 'bursar', labels: { 'app.kubernetes.io/part-of': 'bursar' } },
    spec: { groups: alerts.groups },
  };
  return HEADER + stringify(rule, { lineWidth: 0 });
}

if (require.main === module) writeFileSync(PROMETHEUS_RULE_FILE, prometheusRuleText());
