import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { ALERTS_FILE } from './prometheus-rule';

export const DASHBOARDS_DIR = path.resolve(__dirname, '../../../infra/grafana/dashboards');

/** One PromQL expression of the infra files, with where it comes from (for failure messages). */
export interface InfraQuery {
  source: string;
  expr: string;
}

export interface AlertRule {
  alert: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export function alertRules(): AlertRule[] {
  const file: { groups: { rules: AlertRule[] }[] } = parse(readFileSync(ALERTS_FILE, 'utf8'));
  return file.groups.flatMap((g) => g.rules);
}

interface Panel {
  title: string;
  targets?: { expr?: string }[];
  panels?: Panel[];
}

/** Each dashboard file's name (without .json) and parsed content. */
export function dashboards(): { name: string; panels: Panel[] }[] {
  return readdirSync(DASHBOARDS_DIR)
    .filter((f) => f.endsWith('.json'))
    .map((f) => ({ name: f.replace(/\.json$/, ''), panels: JSON.parse(readFileSync(path.join(DASHBOARDS_DIR, f), 'utf8')).panels }));
}

/** Every expression of the alert rules and of every dashboard panel (rows' nested panels included). */
export function infraQueries(): InfraQuery[] {
  const fromPanels = (dashboard: string, panels: Panel[]): InfraQuery[] =>
    panels.flatMap((p) => [
      ...(p.targets ?? []).flatMap((t) => (t.expr ? [{ source: `dashboard ${dashboard}: ${p.title}`, expr: t.expr }] : [])),
      ...fromPanels(dashboard, p.panels ?? []),
    ]);
  return [
    ...alertRules().map((r) => ({ source: `alert ${r.alert}`, expr: r.expr })),
    ...dashboards().flatMap((d) => fromPanels(d.name, d.panels)),
  ];
}

/**
 * Grafana's interval variables, which are not PromQL: replaced by a duration so the expression
 * parses as Prometheus will receive it.
 */
export function asPromql(expr: string): string {
  return expr.replace(/\$__(rate_interval|interval|range)/g, '5m');
}
