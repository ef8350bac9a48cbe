import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/server.js';
import { type SocketModeStandin, startSocketModeStandin } from '../../src/slack-standin/index.js';
import { type FakeSlackApi, startFakeSlackApi } from '../fakes/fake-slack-api.js';
import { postForm, postJson } from '../fakes/signed-request.js';
import { slashCommand, threadReply } from '../fixtures/slack.js';
import { dropNamespace, storeKinds, testNamespace } from '../support/redis.js';
import { eventually, startTestApp, TEST_PROJECT_ID, type TestApp } from '../support/test-app.js';

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

describe.each(storeKinds)('GET /metrics ($kind store)', ({ kind, redisUrl, available }) => {
  let slack: FakeSlackApi;
  let sim: Simulator;
  let app: TestApp;
  let namespace: string;

  beforeEach(async (context) => {
    if (!available) context.skip();
    namespace = testNamespace();
    slack = await startFakeSlackApi();
    sim = await startSimulator({ jobDurationMs: 60_000 });
    app = await startTestApp(slack, sim.url, { redisUrl, namespace });
  });

  afterEach(async () => {
    await app?.stop();
    await sim?.close();
    await slack?.close();
    if (kind === 'redis' && available) await dropNamespace(namespace);
  });

  const threadPosts = (rootTs: string) => slack.callsTo('chat.postMessage').filter((c) => c.args.thread_ts === rootTs);

  it('counts what happened: a job to its PR, a follow-up (delivered twice), a Slack refusal and /visitors', async () => {
    // /agent → job → PR.
    await postForm(app.url, slashCommand({ text: 'Document webhooks', response_url: slack.responseUrl('cmd') }));
    const update = await eventually(() =>
      slack.callsTo('chat.update').find((c) => JSON.stringify(c.args.blocks).includes('job `')),
    );
    const rootTs = update.args.ts as string;
    const jobId = sim.getJob(/job `([^`]+)`/.exec(JSON.stringify(update.args.blocks))?.[1] ?? '')?.id as string;
    await eventually(async () => (await scrape(app.url)).get('mintlify_slack_polls_total{result="running"}'));
    sim.endJob(jobId, { status: 'completed', prLink: 'https://github.com/acme/docs/pull/1' });
    await eventually(() => threadPosts(rootTs).length === 1, 5_000, 'the PR post');

    // A follow-up, redelivered by Slack, while Slack refuses the 👀 reaction once; the job ends on the same PR.
    slack.fail('reactions.add', { error: 'already_reacted' });
    const reply = threadReply(rootTs, { text: 'Also the retry policy' });
    await postJson(app.url, reply);
    await postJson(app.url, reply, { headers: { 'x-slack-retry-num': '1', 'x-slack-retry-reason': 'http_timeout' } });
    await eventually(() => sim.counts().followUps === 1, 5_000, 'the follow-up');
    sim.endJob(jobId, { status: 'completed', prLink: 'https://github.com/acme/docs/pull/1' });
    await eventually(() => threadPosts(rootTs).length === 2, 5_000, 'the second outcome');

    // /visitors.
    await postForm(app.url, slashCommand({ command: '/visitors', text: '', response_url: slack.responseUrl('v') }));
    await eventually(() => slack.callsTo('response_url:v').length === 1, 5_000, 'the visitors reply');
    await eventually(async () => (await scrape(app.url)).get('mintlify_slack_jobs_tracked') === 0);

    const m = await scrape(app.url);
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
    const text = await (await fetch(`${app.url}/metrics`)).text();
    for (const id of [jobId, rootTs, 'U123ALICE', 'C123DOCS']) expect(text).not.toContain(id);

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
  let slack: FakeSlackApi;
  let socket: SocketModeStandin;
  let sim: Simulator;
  let app: TestApp | undefined;

  beforeEach(async () => {
    slack = await startFakeSlackApi();
    socket = await startSocketModeStandin(slack);
    sim = await startSimulator();
  });
  afterEach(async () => {
    await app?.stop();
    await socket.close();
    await sim.close();
    await slack.close();
  });

  it('is served on the health port and times envelopes acknowledged over the socket', async () => {
    app = await startTestApp(slack, sim.url, {
      env: { SLACK_APP_TOKEN: slack.workspace.appToken, SLACK_SIGNING_SECRET: '' },
      slackRetry: { initialMs: 50, maxMs: 200 },
    });
    await eventually(() => socket.connected, 5_000, 'the Socket Mode connection');
    await socket.slashCommand(slashCommand({ command: '/visitors', text: '', response_url: slack.responseUrl('v') }));
    await eventually(() => slack.callsTo('response_url:v').length === 1, 5_000, 'the visitors reply');

    const m = await scrape(app.url);
    expect(m.get('mintlify_slack_ack_seconds_count{kind="/visitors"}')).toBe(1);
    expect(m.get('mintlify_slack_slack_requests_total{kind="/visitors",outcome="ok"}')).toBe(1);
    expect(m.get('mintlify_slack_service_responses_total{operation="get_visitors",status="200"}')).toBe(
      sim.counts().visitors,
    );
  });
});
