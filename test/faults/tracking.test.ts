import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/server.js';
import { type FakeSlackApi, startFakeSlackApi } from '../fakes/fake-slack-api.js';
import { postJson } from '../fakes/signed-request.js';
import { CHANNEL_ID, threadReply, USER_ID } from '../fixtures/slack.js';
import { dropNamespace, storeKinds, testNamespace } from '../support/redis.js';
import { eventually, startTestApp, TEST_PROJECT_ID, type TestApp } from '../support/test-app.js';
import { FAST_POLL, LONG_JOB_MS, sleep, startJobVia, threadPosts } from './support.js';

const PR = 'https://github.com/acme/docs/pull/77';

/**
 * The ways tracking lost a follow-up's result, posted twice or retried forever (issue 9), each reproduced
 * through the real app, the fake Slack and the simulator, on both stores.
 */
describe.each(storeKinds)(
  'tracking that cannot lose, repeat or loop ($kind store)',
  ({ kind, redisUrl, available }) => {
    let slack: FakeSlackApi;
    let sim: Simulator;
    let namespace: string;
    const apps: TestApp[] = [];

    beforeEach(async (context) => {
      if (!available) context.skip();
      namespace = testNamespace();
      slack = await startFakeSlackApi();
      sim = await startSimulator({ jobDurationMs: LONG_JOB_MS });
    });

    afterEach(async () => {
      await Promise.all(apps.splice(0).map((app) => app.stop()));
      await sim?.close();
      await slack?.close();
      if (kind === 'redis' && available) await dropNamespace(namespace);
    });

    async function boot(env: Record<string, string> = {}, options: { slackTimeoutMs?: number } = {}) {
      const app = await startTestApp(slack, sim.url, {
        redisUrl,
        namespace,
        env: { ...FAST_POLL, ...env },
        ...options,
      });
      apps.push(app);
      return app;
    }

    const outcomes = (rootTs: string) =>
      slack.messages.filter((m) => m.thread_ts === rootTs && JSON.stringify(m.metadata ?? '').includes('outcome'));
    const lastRootUpdate = (rootTs: string) =>
      JSON.stringify(
        slack
          .callsTo('chat.update')
          .filter((c) => c.args.ts === rootTs)
          .at(-1)?.args.blocks ?? '',
      );

    it('a follow-up that lands while the outcome is being posted starts a round whose result is posted too', async () => {
      const app = await boot();
      const { jobId, rootTs } = await startJobVia(app.url, slack, 'Race the outcome');
      // The outcome post takes a while; the follow-up arrives and is accepted meanwhile.
      slack.fail('chat.postMessage', { delayMs: 700 }, 1, (args) => args.thread_ts === rootTs);
      sim.endJob(jobId, { status: 'completed', prLink: PR });
      await eventually(() => slack.callsTo('chat.postMessage').some((c) => c.args.thread_ts === rootTs), 5_000, 'post');
      expect((await postJson(app.url, threadReply(rootTs, { text: 'Also fix the title' }))).status).toBe(200);
      await eventually(() => sim.getJob(jobId)?.status === 'active', 5_000, 'the follow-up accepted');

      await eventually(() => outcomes(rootTs).length === 1, 5_000, 'the first outcome');
      await sleep(400);
      expect(lastRootUpdate(rootTs)).toContain('Working'); // not "Pull request ready" while the agent works
      expect(await app.app.deps.store.jobs.active(TEST_PROJECT_ID)).toEqual([jobId]);

      sim.endJob(jobId, { status: 'completed', prLink: PR });
      await eventually(() => outcomes(rootTs).length === 2, 5_000, 'the follow-up round’s outcome');
      expect(String(outcomes(rootTs)[1]?.text)).toContain('updated the pull request');
      await eventually(() => lastRootUpdate(rootTs).includes('Pull request ready'), 3_000, 'root ended');
      await sleep(300);
      expect(outcomes(rootTs)).toHaveLength(2);
    });

    it('two follow-ups at once each get a round; the job’s one result is posted once', async () => {
      const app = await boot();
      const { jobId, rootTs } = await startJobVia(app.url, slack, 'Two replies at once');
      await Promise.all([
        postJson(app.url, threadReply(rootTs, { text: 'First addition' })),
        postJson(app.url, threadReply(rootTs, { text: 'Second addition' })),
      ]);
      await eventually(
        () => slack.callsTo('reactions.add').filter((c) => c.args.name === 'white_check_mark').length === 2,
      );
      expect((await app.app.deps.store.jobs.get({ project: TEST_PROJECT_ID, jobId }))?.round).toBe(2);
      sim.endJob(jobId, { status: 'completed', prLink: PR });
      await eventually(() => outcomes(rootTs).length === 1, 5_000, 'the outcome');
      await sleep(400);
      expect(outcomes(rootTs)).toHaveLength(1);
    });

    it.each([
      'is_archived',
      'channel_not_found',
      'not_in_channel',
      'invalid_blocks',
      'msg_too_long',
      'restricted_action',
    ])(
      'stops for good when Slack refuses the outcome with %s: one attempt, a log line for the admin, the result in a DM',
      async (code) => {
        const app = await boot();
        const { jobId, rootTs } = await startJobVia(app.url, slack, `Refused with ${code}`);
        slack.fail('chat.postMessage', { error: code }, 1_000, (args) => args.thread_ts === rootTs);
        sim.endJob(jobId, { status: 'completed', prLink: PR });
        const dm = await eventually(
          () => slack.callsTo('chat.postMessage').find((c) => c.args.channel === USER_ID),
          5_000,
          'the DM to the requester',
        );
        expect(String(dm.args.text)).toContain(code);
        expect(String(dm.args.text)).toContain(PR);
        await sleep(800); // many poll intervals
        expect(threadPosts(slack, rootTs)).toHaveLength(1);
        expect(app.logs()).toContain('"event":"poller.outcome_undeliverable"');
        expect(await app.app.deps.store.jobs.active(TEST_PROJECT_ID)).toEqual([]);
      },
    );

    it('a 5xx after Slack stored the outcome: the thread is read before retrying, so it is there once', async () => {
      const app = await boot();
      const { jobId, rootTs } = await startJobVia(app.url, slack, 'Stored, then 503');
      slack.fail('chat.postMessage', { status: 503, afterStoring: true }, 2, (args) => args.thread_ts === rootTs);
      sim.endJob(jobId, { status: 'completed', prLink: PR });
      await eventually(() => lastRootUpdate(rootTs).includes('Pull request ready'), 8_000, 'the round ended');
      await sleep(400);
      expect(outcomes(rootTs)).toHaveLength(1);
      expect(threadPosts(slack, rootTs)).toHaveLength(1); // one attempt: the retry found it in the thread
      expect(slack.callsTo('conversations.replies').length).toBeGreaterThan(0);
    });

    it('a hung outcome post times out, is found or retried, and never duplicates', async () => {
      const app = await boot({}, { slackTimeoutMs: 300 });
      const { jobId, rootTs } = await startJobVia(app.url, slack, 'Hung post');
      slack.fail('chat.postMessage', { delayMs: 1_000 }, 1, (args) => args.thread_ts === rootTs);
      sim.endJob(jobId, { status: 'completed', prLink: PR });
      await eventually(() => lastRootUpdate(rootTs).includes('Pull request ready'), 8_000, 'the round ended');
      await sleep(1_200); // the hung request is answered (and stored) long after the client gave up on it
      expect(outcomes(rootTs).length).toBeGreaterThanOrEqual(1);
      expect(outcomes(rootTs).length).toBeLessThanOrEqual(2);
      expect(app.logs()).toContain('"slack_error":"slack_webapi_request_error"');
    });

    it('a Slack 429 on the outcome waits out Retry-After and posts once', async () => {
      const app = await boot();
      const { jobId, rootTs } = await startJobVia(app.url, slack, 'Throttled outcome');
      slack.fail('chat.postMessage', { status: 429, retryAfterSec: 1 }, 1, (args) => args.thread_ts === rootTs);
      sim.endJob(jobId, { status: 'completed', prLink: PR });
      await eventually(() => outcomes(rootTs).length === 1, 6_000, 'the outcome');
      const [refused, delivered] = threadPosts(slack, rootTs);
      expect((delivered?.at ?? 0) - (refused?.at ?? 0)).toBeGreaterThanOrEqual(950);
      await sleep(400);
      expect(outcomes(rootTs)).toHaveLength(1);
    });

    it('a job that ended long ago (past JOB_MAX_AGE_MS) still gets its result, not "expired"', async () => {
      const app = await boot({ JOB_MAX_AGE_MS: '1000' });
      const job = await app.app.deps.mintlify.createJob(TEST_PROJECT_ID, 'Finished while nobody watched');
      sim.endJob(job.id, { status: 'completed', prLink: PR });
      const rootTs = '1690000000.000100';
      await app.app.deps.store.jobs.create(
        {
          project: TEST_PROJECT_ID,
          jobId: job.id,
          channel: CHANNEL_ID,
          threadTs: rootTs,
          statusTs: rootTs,
          userId: USER_ID,
          prompt: 'Finished while nobody watched',
          createdAtMs: Date.now() - 60_000,
        },
        { status: 'active' },
        Date.now() - 60_000,
      );
      const [post] = await eventually(() => threadPosts(slack, rootTs).length && threadPosts(slack, rootTs), 5_000);
      expect(String(post?.args.text)).toContain(PR);
      expect(String(post?.args.text)).not.toContain('stopped tracking');
    });

    it.each([
      [
        'its dedupe claim',
        (store: TestApp['app']['deps']['store']) => {
          const claim = store.claims.claim.bind(store.claims);
          store.claims.claim = async (key, owner, ttl) =>
            key.startsWith('message:') ? Promise.reject(new Error('down')) : claim(key, owner, ttl);
        },
      ],
      [
        'its hourly slot',
        (store: TestApp['app']['deps']['store']) => {
          // Budgets are one per name, so this is the very budget the follow-up takes from.
          const budget = store.budget({ name: 'quota:follow_up', points: 100, durationMs: 3_600_000 });
          budget.take = () => Promise.reject(new Error('down'));
        },
      ],
    ])(
      'answers a follow-up when the store fails on %s: ❌ and a private note with the text, nothing sent',
      async (_, breakStore) => {
        const app = await boot();
        const { rootTs } = await startJobVia(app.url, slack, 'Store fails on a reply');
        breakStore(app.app.deps.store);
        await postJson(app.url, threadReply(rootTs, { text: 'Keep <this> & that' }));
        const note = await eventually(() => slack.callsTo('chat.postEphemeral')[0], 5_000, 'the private note');
        expect(String(note.args.text)).toContain('storage is unavailable');
        expect(String(note.args.text)).toContain('Keep &lt;this&gt; &amp; that');
        expect(slack.callsTo('reactions.add').map((c) => c.args.name)).toContain('x');
        expect(sim.requests.filter((r) => r.path.endsWith('/message'))).toHaveLength(0);
      },
    );

    it('keeps retrying the round of a follow-up Mintlify accepted while the store is failing', async () => {
      const app = await boot();
      const { jobId, rootTs } = await startJobVia(app.url, slack, 'Store flaps after acceptance');
      const { jobs } = app.app.deps.store;
      const startRound = jobs.startRound.bind(jobs);
      let failures = 0;
      jobs.startRound = async (...args) => {
        if (failures++ < 2) throw new Error('Socket closed unexpectedly');
        return startRound(...args);
      };
      await postJson(app.url, threadReply(rootTs, { text: 'After the flap' }));
      await eventually(() => slack.callsTo('reactions.add').some((c) => c.args.name === 'white_check_mark'), 8_000);
      expect((await jobs.get({ project: TEST_PROJECT_ID, jobId }))?.round).toBe(1);
      sim.endJob(jobId, { status: 'completed', prLink: PR });
      await eventually(() => outcomes(rootTs).length === 1, 5_000, 'the follow-up’s outcome');
      expect(app.logs()).toContain('"event":"store.retry"');
    });

    it('tells the person when an accepted follow-up cannot be tracked at all', async () => {
      const app = await boot();
      const { rootTs } = await startJobVia(app.url, slack, 'Store gone after acceptance');
      const { jobs } = app.app.deps.store;
      jobs.startRound = async () => {
        throw new Error('Socket closed unexpectedly');
      };
      await postJson(app.url, threadReply(rootTs, { text: 'Lost without a word?' }));
      const note = await eventually(() => slack.callsTo('chat.postEphemeral')[0], 15_000, 'the private note');
      expect(String(note.args.text)).toContain('The agent received your instruction');
      expect(String(note.args.text)).toContain('Lost without a word?');
      expect(slack.callsTo('reactions.add').map((c) => c.args.name)).toContain('white_check_mark');
    });
  },
);
