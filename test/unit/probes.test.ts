import { afterEach, describe, expect, it } from 'vitest';
import { createProbes, type Probes } from '../../src/app/probes.js';
import { createMetrics } from '../../src/metrics.js';
import { captureLogs } from '../support/logs.js';

describe('probes: /healthz on the public port, /metrics on the operator port', () => {
  let probes: Probes;
  afterEach(() => probes.close());

  const getter = (port: number) => async (path: string) => {
    const res = await fetch(`http://127.0.0.1:${port}${path}`);
    return { status: res.status, body: await res.text() };
  };
  async function start() {
    probes = createProbes(captureLogs().log, createMetrics());
    const [publicPort, operatorPort] = [await probes.listen(0), await probes.listenOperator(0)];
    return { get: getter(publicPort), operator: getter(operatorPort) };
  }

  it('the public /healthz says up or down and nothing more; the operator port names the checks that fail', async () => {
    const { get, operator } = await start();
    let storeOk = true;
    probes.check('store', () => storeOk);
    expect(await get('/healthz')).toEqual({ status: 503, body: '{"ok":false}' });
    // Not ready yet (starting, Slack not answered) or stopping: the operator's says so, not an empty reason.
    expect(await operator('/healthz')).toEqual({ status: 503, body: '{"ok":false,"failing":["ready"]}' });
    probes.setReady(true);
    expect(await get('/healthz')).toEqual({ status: 200, body: '{"ok":true}' });
    storeOk = false;
    expect(await get('/healthz')).toEqual({ status: 503, body: '{"ok":false}' });
    expect(await operator('/healthz')).toEqual({ status: 503, body: '{"ok":false,"failing":["store"]}' });
  });

  it('serves the Prometheus text on the operator port only, 404 elsewhere', async () => {
    const { get, operator } = await start();
    expect((await operator('/metrics')).body).toContain('nodejs_eventloop_lag_seconds');
    expect((await get('/metrics')).status).toBe(404);
    expect(probes.routes.map((route) => route.path)).toEqual(['/healthz']);
    expect((await get('/slack/events')).status).toBe(404);
    expect((await operator('/slack/events')).status).toBe(404);
  });

  it('serves another page on the public port by its path, whatever the query (the install pages)', async () => {
    probes = createProbes(captureLogs().log, createMetrics());
    probes.serve('/slack/oauth_redirect', (req, res) => res.writeHead(200).end(`back: ${req.url}`));
    const port = await probes.listen(0);
    const res = await fetch(`http://127.0.0.1:${port}/slack/oauth_redirect?code=c1&state=s1`);
    expect(await res.text()).toBe('back: /slack/oauth_redirect?code=c1&state=s1');
  });
});

describe('metrics labels', () => {
  it('count jobs by project, or in all when the projects are many workspaces’ own (no quota gauges then)', async () => {
    const perProject = createMetrics();
    perProject.jobStarted('proj_a');
    expect(await perProject.render()).toContain('mintlify_slack_jobs_started_total{project="proj_a"} 1');
    const many = createMetrics({ projectLabels: false });
    many.jobStarted('proj_a');
    const text = await many.render();
    expect(text).toContain('mintlify_slack_jobs_started_total 1');
    expect(text).not.toContain('proj_a');
    expect(text).not.toContain('mintlify_slack_quota_used');
  });
});

describe('metrics never fail the work they measure', () => {
  it('a measurement a metric refuses (NaN) is counted as refused, not thrown at the request it measures', async () => {
    const metrics = createMetrics();
    expect(() => metrics.slackRequest('/agent', Number.NaN, 'ok')).not.toThrow();
    metrics.slackRequest('/agent', 12, 'ok');
    const text = await metrics.render();
    expect(text).toContain('mintlify_slack_metrics_refused_total{metric="ack_seconds"} 1');
    expect(text).toContain('mintlify_slack_ack_seconds_count{kind="/agent"} 1');
    expect(text).toContain('mintlify_slack_slack_requests_total{kind="/agent",outcome="ok"} 2');
  });
});
