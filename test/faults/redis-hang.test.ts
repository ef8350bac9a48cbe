import { beforeEach, describe, expect, it } from 'vitest';
import { USER_ID } from '../fixtures/slack.js';
import { useHarness } from '../support/harness.js';
import { redisAvailable, redisStore } from '../support/redis.js';
import { settle } from '../support/steps.js';
import { oauthEnv, Workspaces } from '../support/tenants.js';
import { eventually } from '../support/test-app.js';
import { FAST_POLL, LONG_JOB_MS, useRedisProxy } from './support.js';

const KEY = 'mint_acme_4f1c2d9e8b7aAAAA';
const PR = 'https://github.com/acme/docs/pull/404';
/** The bot promises the person an answer this soon after the ack, whatever Redis does. */
const ANSWER_WITHIN_MS = 3_000;

/**
 * A Redis that hangs (a failover, a network blackhole with the connection left open: issue 20, defect 4),
 * reproduced with a TCP proxy that holds every byte: the person is answered within 3 s of the ack, /healthz says
 * 503 while Redis does not answer, and all is well again once it does, without a restart.
 */
describe.skipIf(!redisAvailable)('a Redis that hangs', () => {
  const h = useHarness({ store: redisStore, simulator: { jobDurationMs: LONG_JOB_MS }, env: FAST_POLL });
  const proxy = useRedisProxy(h);

  beforeEach(async () => {
    await h.boot({ redisUrl: proxy().url });
  });

  const healthz = async () => (await fetch(`${h.app.url}/healthz`)).status;

  it('/agent is answered "storage unavailable" with its text within 3 s of the ack; /healthz 503 until Redis answers', async () => {
    expect(await healthz()).toBe(200);
    proxy().pause();
    await h.command('/agent Document <retries>');
    const since = performance.now();
    const answer = await h.answer(undefined, 0, ANSWER_WITHIN_MS + 500);
    expect(performance.now() - since).toBeLessThan(ANSWER_WITHIN_MS);
    expect(String(answer.args.text)).toContain('storage is unavailable');
    expect(String(answer.args.text)).toContain('Document &lt;retries&gt;');
    await eventually(async () => (await healthz()) === 503, 5_000, '/healthz 503 while Redis hangs');

    await proxy().resume();
    await eventually(async () => (await healthz()) === 200, 8_000, '/healthz 200 once Redis answers');
    await h.startJob('After the hang');
  });

  it('a hang of many queue lock periods while jobs are tracked and end: each PR posted once, tracking never stopped', async () => {
    const jobs = [];
    for (const channel of ['C100HANG', 'C200HANG', 'C300HANG']) jobs.push(await h.startJob('Document it', { channel }));
    proxy().pause();
    for (const { jobId } of jobs) h.sim.endJob(jobId, { status: 'completed', prLink: PR });
    // A failover's hang, 12 times QUEUE_LOCK_MS: the worker's looks for due work time out and wait in the socket.
    await settle(12 * Number(FAST_POLL.QUEUE_LOCK_MS));
    await proxy().resume();

    for (const { rootTs } of jobs) await eventually(() => h.threadPosts(rootTs).length > 0, 20_000, 'the PR');
    await settle(2_000); // a second post, or a stop, would have come by now
    for (const { rootTs } of jobs) {
      expect(h.threadPosts(rootTs)).toHaveLength(1);
      expect(String(h.threadPosts(rootTs)[0]?.args.text)).toContain(PR);
    }
    expect(h.app.logs()).not.toContain('"event":"tracking.stopped"');
    expect(h.app.logs()).not.toContain('"event":"queue.job_failed"');
  }, 60_000);

  it('a DM while Redis hangs is answered privately with its text within 3 s, not left without a word', async () => {
    proxy().pause();
    const since = performance.now();
    await h.deliver(h.say(USER_ID, 'DALICE', 'Document the CLI flags').events);
    const told = await eventually(
      () => h.slack.callsTo('chat.postEphemeral').find((c) => String(c.args.text).includes('storage is unavailable')),
      ANSWER_WITHIN_MS + 500,
      'the private answer',
    );
    expect(performance.now() - since).toBeLessThan(ANSWER_WITHIN_MS);
    expect(String(told.args.text)).toContain('Document the CLI flags');
  });
});

/** The same, when the app serves many workspaces: each request's workspace is read from the store (its installation). */
describe.skipIf(!redisAvailable)('a Redis that hangs, serving many workspaces', () => {
  const h = useHarness({
    store: redisStore,
    simulator: { jobDurationMs: LONG_JOB_MS, keys: { keys: { [KEY]: ['proj_a'] } } },
  });
  const ws = new Workspaces(h);
  const proxy = useRedisProxy(h);

  beforeEach(async () => {
    await h.boot({ redisUrl: proxy().url, env: oauthEnv(h) });
    ws.prepare();
  });

  it('a command is answered "storage unavailable" with its text in its ack, not acknowledged without a word', async () => {
    expect((await ws.install('T1', 'U123ALICE')).status).toBe(200);
    expect(await ws.connect('T1', 'U123ALICE', { apiKey: KEY, project: 'proj_a' })).toBeUndefined();
    proxy().pause();
    const since = performance.now();
    const { ack } = await h.command('/agent Document <retries>', { user: 'U123ALICE', fields: { team_id: 'T1' } });
    expect(performance.now() - since).toBeLessThan(ANSWER_WITHIN_MS);
    expect(String(ack?.text)).toContain('storage is not answering');
    expect(String(ack?.text)).toContain('/agent Document &lt;retries&gt;');
  });
});
