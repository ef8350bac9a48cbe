import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/server.js';
import { type FakeSlackApi, type SlackFault, startFakeSlackApi } from '../fakes/fake-slack-api.js';
import { dropNamespace, redisAvailable, TEST_REDIS_URL, testNamespace } from '../support/redis.js';
import { eventually, startTestApp, TEST_PROJECT_ID, type TestApp } from '../support/test-app.js';
import {
  agentCommand,
  FAST_POLL,
  jobIdOfUpdate,
  LEASE_MS,
  LONG_JOB_MS,
  sleep,
  startJobVia,
  threadPosts,
} from './support.js';

describe('Slack refusing or throttling the app', () => {
  let slack: FakeSlackApi;
  let sim: Simulator;
  const apps: TestApp[] = [];
  let namespace: string | undefined;

  beforeEach(async () => {
    slack = await startFakeSlackApi();
    sim = await startSimulator({ jobDurationMs: LONG_JOB_MS });
  });

  afterEach(async () => {
    await Promise.all(apps.splice(0).map((app) => app.stop()));
    await sim.close();
    await slack.close();
    if (namespace) await dropNamespace(namespace);
    namespace = undefined;
  });

  async function boot(redisUrl?: string): Promise<TestApp> {
    const app = await startTestApp(slack, sim.url, { redisUrl, ...(namespace && { namespace }), env: FAST_POLL });
    apps.push(app);
    return app;
  }

  describe.skipIf(!redisAvailable)(
    'outcome post rate-limited (429 + Retry-After) with a second replica running',
    () => {
      it('waits out Retry-After, then delivers the outcome once, even though the wait outlasts the job lease', async () => {
        namespace = testNamespace();
        const first = await boot(TEST_REDIS_URL);
        await boot(TEST_REDIS_URL); // a replica that will see the lease lapse while the first one waits
        const { jobId, rootTs } = await startJobVia(first.url, slack, 'Throttled outcome');

        const retryAfterSec = 3; // longer than LEASE_MS: the replica may take the job over meanwhile
        expect(retryAfterSec * 1000).toBeGreaterThan(LEASE_MS);
        slack.fail('chat.postMessage', { status: 429, retryAfterSec });
        sim.endJob(jobId, { status: 'completed', prLink: 'https://github.com/acme/docs/pull/429' });

        const [refused, delivered] = await eventually(
          () => threadPosts(slack, rootTs).length >= 2 && threadPosts(slack, rootTs),
          retryAfterSec * 1000 + 5_000,
          'the outcome after the wait',
        );
        expect(delivered?.args.text).toContain('pull/429');
        expect((delivered?.at ?? 0) - (refused?.at ?? 0)).toBeGreaterThanOrEqual(retryAfterSec * 1000 - 50);

        await sleep(1_000);
        expect(threadPosts(slack, rootTs)).toHaveLength(2); // the refused attempt and one delivery
        // The replica did take the job over during the wait; the posting claim kept it from posting too.
        expect(apps[1]?.logs()).toContain(`/job/${jobId}`);
        const posted = apps.map((app) => app.logs().match(/"event":"poller\.outcome_posted"/g)?.length ?? 0);
        expect((posted[0] ?? 0) + (posted[1] ?? 0)).toBe(1);
      });
    },
  );

  it('a root post throttled once is retried after Retry-After: one job, one root message, no error for the user', async () => {
    const app = await boot();
    slack.fail('chat.postMessage', { status: 429, retryAfterSec: 1 });
    const { status, ms } = await agentCommand(app.url, slack, 'Throttled root', 'throttled');
    expect(status).toBe(200);
    expect(ms).toBeLessThan(1_000); // the ack never waits on Slack's Web API
    await eventually(
      () =>
        slack
          .callsTo('chat.update')
          .some((c) => jobIdOfUpdate(c) && JSON.stringify(c.args.blocks).includes('Throttled')),
      6_000,
      'the job bound to its root message',
    );
    const roots = slack.callsTo('chat.postMessage').filter((c) => !c.args.thread_ts);
    expect(roots).toHaveLength(2); // the throttled attempt and the retry
    expect((roots[1]?.at ?? 0) - (roots[0]?.at ?? 0)).toBeGreaterThanOrEqual(950);
    expect(sim.counts().creates).toBe(1);
    await sleep(300);
    expect(slack.callsTo('response_url:throttled')).toHaveLength(0);
    expect(slack.callsTo('chat.delete')).toHaveLength(0);
  });

  const rootFaults: [string, SlackFault, number, string][] = [
    ['not_in_channel', { error: 'not_in_channel' }, 1, '/invite'],
    ['channel_not_found', { error: 'channel_not_found' }, 1, '/invite'],
    ['a 503 (never retried: Slack may have stored it)', { status: 503 }, 1, 'Slack did not accept my message'],
    ['an unexpected error', { error: 'fatal_error' }, 1, 'Slack did not accept my message'],
  ];
  it.each(rootFaults)(
    'when the root post fails with %s, tells the user privately and creates no job',
    async (_, fault, count, words) => {
      const app = await boot();
      slack.fail('chat.postMessage', fault, count);
      const { status } = await agentCommand(app.url, slack, 'Refused root <b>', 'refused');
      expect(status).toBe(200);
      const [reply] = await eventually(
        () => slack.callsTo('response_url:refused').length && slack.callsTo('response_url:refused'),
        8_000,
        'private reply',
      );
      expect(reply?.args.response_type).toBe('ephemeral');
      expect(reply?.args.text).toContain(words);
      expect(reply?.args.text).toContain('>Refused root &lt;b&gt;');
      await sleep(300);
      expect(sim.requests).toHaveLength(0);
      expect(slack.callsTo('chat.postMessage')).toHaveLength(count);
      expect(slack.callsTo('chat.update')).toHaveLength(0);
      expect(await app.app.deps.store.jobs.active(TEST_PROJECT_ID)).toEqual([]);
      expect(slack.callsTo('response_url:refused')).toHaveLength(1);
    },
  );
});
