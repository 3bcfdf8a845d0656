import { exposedNames, metricSelectors, targetedServices, unexposedMetrics } from './promql-selectors';

describe('metricSelectors', () => {
  it('finds metric names, not functions, aggregations, grouping labels, numbers or durations', () => {
    const expr = `histogram_quantile(0.99, sum by (job, le) (rate(http_request_duration_seconds_bucket{job=~"control|ledger", route!~"/x"}[5m])))
      / on (job) group_left (instance) max without (pod) (up{job="ledger"}) > 1e3 # comment with fake_metric
      and sum(rate(webhook_deliveries_total{job='webhook-worker'}[1h30m] offset 5m)) by (service) or {__name__="bare_total", job="control"}`;
    expect(metricSelectors(expr)).toEqual([
      {
        name: 'http_request_duration_seconds_bucket',
        matchers: [{ label: 'job', op: '=~', value: 'control|ledger' }, { label: 'route', op: '!~', value: '/x' }],
      },
      { name: 'up', matchers: [{ label: 'job', op: '=', value: 'ledger' }] },
      { name: 'webhook_deliveries_total', matchers: [{ label: 'job', op: '=', value: 'webhook-worker' }] },
      { name: 'bare_total', matchers: [{ label: 'job', op: '=', value: 'control' }] },
    ]);
  });

  it('takes a name without matchers and refuses a malformed matcher block', () => {
    expect(metricSelectors('process_cpu_seconds_total > 1')).toEqual([{ name: 'process_cpu_seconds_total', matchers: [] }]);
    expect(() => metricSelectors('up{job=control}')).toThrow(/malformed label matcher/);
  });

  it('resolves job matchers to the services they target, regexes anchored', () => {
    const services = ['control', 'ledger', 'webhook-worker'];
    const targets = (expr: string) => targetedServices(metricSelectors(expr)[0], services);
    expect(targets('x{job=~"control|ledger"}')).toEqual(['control', 'ledger']);
    expect(targets('x{job!="ledger"}')).toEqual(['control', 'webhook-worker']);
    expect(targets('x{job=~"led"}')).toEqual([]);
  });
});

describe('unexposedMetrics', () => {
  const exposed = {
    control: exposedNames('# HELP a_total x\n# TYPE a_total counter\na_total 1\nh_bucket{le="1"} 0\nh_count 0\n'),
    ledger: exposedNames('a_total{x="y"} 2\n'),
  };
  const external = new Set(['up']);

  it('reports a name a targeted service does not expose, and nothing for names it does', () => {
    expect(unexposedMetrics('sum(rate(a_total{job=~"control|ledger"}[5m])) + up{job="ledger"}', exposed, external)).toEqual([]);
    expect(unexposedMetrics('rate(h_count{job="control"}[5m])', exposed, external)).toEqual([]);
    expect(unexposedMetrics('rate(h_count{job=~"control|ledger"}[5m])', exposed, external)).toEqual(['h_count: not exposed by ledger']);
    expect(unexposedMetrics('bogus_metric_total{job="control"}', exposed, external)).toEqual(['bogus_metric_total: not exposed by control']);
    // HELP/TYPE lines alone are no proof: h is a family, its samples are h_bucket and h_count.
    expect(unexposedMetrics('h{job="control"}', exposed, external)).toEqual(['h: not exposed by control']);
  });

  it('reports selectors without a job matcher or matching no service', () => {
    expect(unexposedMetrics('a_total', exposed, external)).toEqual(['a_total: no job matcher']);
    expect(unexposedMetrics('a_total{job="worker"}', exposed, external)).toEqual(['a_total: its job matcher fits no service']);
  });
});
