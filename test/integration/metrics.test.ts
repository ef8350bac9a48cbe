import { describe, expect, it } from 'vitest';
import { threadReply } from '../fixtures/slack.js';
import { useHarness } from '../support/harness.js';
import { storeKinds } from '../support/redis.js';
import { eventually, metricsUrlOf, TEST_PROJECT_ID, type TestApp, urlOf } from '../support/test-app.js';

/** `name{a="1",b="2"} value` lines of a Prometheus text scrape, as `name{a="1",b="2"}` → value. */
async function scrape(url: string): Promise<Map<string, number>> {
  const res = await fetch(`${url}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toContain('text/plain');
  const samples = new Map<string, number>();
  for (const line of (await res.text()).split('\n')) {
    const match = /^([a-z_:][a-z0-9_:]*(?:\{[^}]*\})?) (\S+)$/i.exec(line);
    if (match?.[1] && match[2]) samples.set(match[1], Number(match[2]));
  }
  return samples;
}

/** A counter's or histogram's samples: what Prometheus adds up across the processes of a deployment. */
const ADDED_UP = /^[a-z_:]+_(total|count|sum|bucket)(\{|$)/i;

/**
 * What an operator reads from a deployment: every instance's counters added up (the web counts requests, the
 * workers polls and posts), its gauges as the first instance reports them (they read the shared store).
 */
async function scrapeAll(app: TestApp): Promise<Map<string, number>> {
  const [first = new Map<string, number>(), ...rest] = await Promise.all(
    app.instances.map((i) => scrape(metricsUrlOf(i))),
  );
  for (const samples of rest) {
    for (const [name, value] of samples) if (ADDED_UP.test(name)) first.set(name, (first.get(name) ?? 0) + value);
  }
  return first;
}

describe.each(storeKinds)('GET /metrics ($label)', (store) => {
  const h = useHarness({ store, simulator: { jobDurationMs: 60_000 }, boot: true });

  it('counts what happened: a job to its PR, a follow-up (delivered twice), a Slack refusal and /visitors', async () => {
    const { app, sim, slack } = h;
    // /agent → job → PR.
    const { jobId, rootTs } = await h.startJob('Document webhooks');
    await eventually(async () => (await scrapeAll(app)).get('mintlify_slack_polls_total{result="running"}'));
    sim.endJob(jobId, { status: 'completed', prLink: 'https://github.com/acme/docs/pull/1' });
    await eventually(() => h.threadPosts(rootTs).length === 1, 5_000, 'the PR post');

    // A follow-up, redelivered by Slack, while Slack refuses the 👀 reaction once; the job ends on the same PR.
    slack.fail('reactions.add', { error: 'already_reacted' });
    const reply = threadReply(rootTs, { text: 'Also the retry policy' });
    await h.deliver(reply);
    await h.deliver(reply, { retry: 1 });
    await eventually(() => sim.counts().followUps === 1, 5_000, 'the follow-up');
    sim.endJob(jobId, { status: 'completed', prLink: 'https://github.com/acme/docs/pull/1' });
    await eventually(() => h.threadPosts(rootTs).length === 2, 5_000, 'the second outcome');

    // /visitors.
    await h.command('/visitors');
    await h.answer();
    await eventually(async () => (await scrapeAll(app)).get('mintlify_slack_jobs_tracked') === 0);

    const m = await scrapeAll(app);
    const at = (name: string) => m.get(name) ?? 0;
    expect(at(`mintlify_slack_jobs_started_total{project="${TEST_PROJECT_ID}"}`)).toBe(1);
    expect(at('mintlify_slack_outcomes_posted_total{kind="pull_request"}')).toBe(2);
    expect(at('mintlify_slack_polls_total{result="ended"}')).toBe(2);
    // Every poll read the job once.
    expect(at('mintlify_slack_polls_total{result="running"}') + 2).toBe(sim.counts().gets);
    expect(at('mintlify_slack_duplicates_prevented_total{kind="event"}')).toBe(1);
    expect(at('mintlify_slack_slack_api_errors_total{method="reactions.add",code="already_reacted"}')).toBe(1);
    expect(at('mintlify_slack_service_responses_total{operation="create_job",status="201"}')).toBe(1);
    expect(at('mintlify_slack_service_responses_total{operation="send_follow-up",status="200"}')).toBe(1);
    expect(at('mintlify_slack_service_responses_total{operation="get_visitors",status="200"}')).toBe(
      sim.counts().visitors,
    );
    expect(at('mintlify_slack_service_responses_total{operation="get_job",status="200"}')).toBe(sim.counts().gets);
    expect(at(`mintlify_slack_quota_used{project="${TEST_PROJECT_ID}",kind="create"}`)).toBe(1);
    expect(at(`mintlify_slack_quota_left{project="${TEST_PROJECT_ID}",kind="create"}`)).toBe(99);
    expect(at(`mintlify_slack_quota_used{project="${TEST_PROJECT_ID}",kind="follow_up"}`)).toBe(1);
    expect(at('mintlify_slack_ack_seconds_count{kind="/agent"}')).toBe(1);
    expect(at('mintlify_slack_ack_seconds_count{kind="/visitors"}')).toBe(1);
    expect(at('mintlify_slack_ack_seconds_count{kind="event:message"}')).toBe(2);
    expect(at('mintlify_slack_slack_requests_total{kind="/agent",outcome="ok"}')).toBe(1);
    expect(at('mintlify_slack_store_errors_total')).toBe(0);
    expect(m.has('nodejs_eventloop_lag_seconds')).toBe(true);
    // Bounded labels: no job, user, channel or message id anywhere.
    for (const instance of app.instances) {
      const text = await (await fetch(`${metricsUrlOf(instance)}/metrics`)).text();
      for (const id of [jobId, rootTs, 'U123ALICE', 'C123DOCS']) expect(text).not.toContain(id);
    }

    // One info line per request: kind, ack time, outcome.
    const lines = app
      .logs()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.event === 'slack.request');
    expect(lines.filter((line) => line.kind === '/agent')).toEqual([
      expect.objectContaining({ level: 'info', outcome: 'ok', ack_ms: expect.any(Number) }),
    ]);
    expect(lines).toHaveLength(4);
    // Job lines come from a child logger carrying the job and its project.
    expect(app.logs()).toMatch(
      new RegExp(`"event":"poller.outcome_posted","project":"${TEST_PROJECT_ID}","job_id":"${jobId}"`),
    );
  });
});

describe('GET /metrics in Socket Mode', () => {
  const h = useHarness({ slack: { socketMode: true } });

  it('is served on the operator port and times envelopes acknowledged over the socket', async () => {
    const app = await h.boot({ slackRetry: { initialMs: 50, maxMs: 200 } });
    await h.command('/visitors');
    await h.answer();

    const m = await scrape(metricsUrlOf(app.app));
    expect(m.get('mintlify_slack_ack_seconds_count{kind="/visitors"}')).toBe(1);
    expect(m.get('mintlify_slack_slack_requests_total{kind="/visitors",outcome="ok"}')).toBe(1);
    expect(m.get('mintlify_slack_service_responses_total{operation="get_visitors",status="200"}')).toBe(
      h.sim.counts().visitors,
    );
  });
});

// Issue 31, defect 8: /metrics and /healthz answered anyone on the public Slack port, and in single-workspace mode
// the metrics name project ids. /metrics moved to its own port (METRICS_PORT); the public /healthz says up or down.
describe.each(storeKinds)('operator endpoints off the public port ($label)', (store) => {
  const h = useHarness({ store, boot: true });

  it('the Slack port serves no /metrics and a /healthz of up or down; METRICS_PORT serves both in full', async () => {
    for (const instance of h.app.instances) {
      expect(instance.metricsPort).not.toBe(instance.port);
      const publicMetrics = await fetch(`${urlOf(instance)}/metrics`);
      expect(publicMetrics.status).toBe(404);
      expect(await publicMetrics.text()).not.toContain(TEST_PROJECT_ID);
      const health = await fetch(`${urlOf(instance)}/healthz`);
      expect({ status: health.status, body: await health.json() }).toEqual({ status: 200, body: { ok: true } });
      const m = await scrape(metricsUrlOf(instance));
      expect(m.get(`mintlify_slack_quota_left{project="${TEST_PROJECT_ID}",kind="create"}`)).toBe(100);
      expect(await (await fetch(`${metricsUrlOf(instance)}/healthz`)).json()).toEqual({ ok: true });
    }
  });

  it('a METRICS_PORT equal to PORT is refused at start: /metrics must not be served where Slack sends requests', async () => {
    await expect(h.restart({ env: { PORT: '3999', METRICS_PORT: '3999' } })).rejects.toThrow(
      'METRICS_PORT: must differ from PORT',
    );
  });
});
