import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { DEFAULT_QUEUE_PREFIX, WEBHOOK_DELIVERY_QUEUE } from '@bursar/queue';
import { alertRules, asPromql, dashboards, infraQueries } from './infra-queries';
import { PROMETHEUS_RULE_FILE, prometheusRuleText } from './prometheus-rule';
import { metricSelectors } from './promql-selectors';

const root = path.resolve(__dirname, '../../..');
const infra = path.join(root, 'infra');

function yamlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return yamlFiles(p);
    return /\.ya?ml$/.test(e.name) ? [p] : [];
  });
}

function documents(file: string): Record<string, unknown>[] {
  return parseAllDocuments(readFileSync(file, 'utf8')).map((d) => d.toJS());
}

describe('infra files', () => {
  it('every YAML file under infra/ parses', () => {
    const files = yamlFiles(infra);
    expect(files.length).toBeGreaterThan(10);
    for (const file of files) {
      for (const doc of parseAllDocuments(readFileSync(file, 'utf8'))) expect([path.relative(root, file), doc.errors]).toEqual([path.relative(root, file), []]);
    }
  });

  it('every kustomization lists files that exist and every manifest of its folder', () => {
    for (const file of yamlFiles(infra).filter((f) => path.basename(f) === 'kustomization.yaml')) {
      const dir = path.dirname(file);
      const resources: string[] = parse(readFileSync(file, 'utf8')).resources;
      for (const r of resources) expect([r, existsSync(path.join(dir, r))]).toEqual([r, true]);
      // The secrets example stays out on purpose: real secrets are created by hand.
      const manifests = readdirSync(dir).filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml' && f !== 'secrets.example.yaml');
      expect(resources.slice().sort()).toEqual(manifests.sort());
    }
  });

  it('the PrometheusRule is alerts.yml as generated (`pnpm -s ops:rules` refreshes it)', () => {
    expect(readFileSync(PROMETHEUS_RULE_FILE, 'utf8')).toBe(prometheusRuleText());
  });

  it('every alert has a duration, a severity, a summary, a description and a runbook section that exists', () => {
    const operations = readFileSync(path.join(root, 'docs/operations.md'), 'utf8');
    const anchors = new Set([...operations.matchAll(/^#+ (.+)$/gm)].map((m) => m[1].trim().toLowerCase().replace(/[^a-z0-9 -]/g, '').replace(/ /g, '-')));
    const rules = alertRules();
    expect(rules.length).toBeGreaterThanOrEqual(8);
    for (const r of rules) {
      expect([r.alert, typeof r.for]).toEqual([r.alert, 'string']);
      expect([r.alert, r.labels?.severity]).toEqual([r.alert, expect.stringMatching(/^(critical|warning)$/)]);
      expect([r.alert, r.annotations?.summary, r.annotations?.description]).toEqual([r.alert, expect.any(String), expect.any(String)]);
      const anchor = /^docs\/operations\.md#(.+)$/.exec(r.annotations?.runbook ?? '')?.[1];
      expect([r.alert, anchor !== undefined && anchors.has(anchor)]).toEqual([r.alert, true]);
    }
  });

  it('every expression of the alerts and dashboards parses, each selector naming its job', () => {
    const queries = infraQueries();
    expect(queries.length).toBeGreaterThan(30);
    for (const q of queries) {
      const selectors = metricSelectors(asPromql(q.expr));
      expect([q.source, selectors.length > 0]).toEqual([q.source, true]);
      for (const s of selectors) expect([q.source, s.name, s.matchers.some((m) => m.label === 'job')]).toEqual([q.source, s.name, true]);
    }
    expect(dashboards().map((d) => d.name).sort()).toEqual(['control', 'ledger', 'webhook-worker']);
  });

  it("the worker's ScaledObject watches the delivery queue's wait list", () => {
    const [scaled] = documents(path.join(infra, 'k8s/webhook-worker-scaledobject.yaml')) as { spec: { triggers: { type: string; metadata: Record<string, string> }[] } }[];
    const redis = scaled.spec.triggers.find((t) => t.type === 'redis');
    expect(redis?.metadata.listName).toBe(`${DEFAULT_QUEUE_PREFIX}:${WEBHOOK_DELIVERY_QUEUE}:wait`);
  });
});
