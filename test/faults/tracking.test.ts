import { describe, expect, it } from 'vitest';
import { CHANNEL_ID, threadReply, USER_ID } from '../fixtures/slack.js';
import { useHarness } from '../support/harness.js';
import { storeKinds } from '../support/redis.js';
import { eventually, TEST_PROJECT_ID, type TestApp } from '../support/test-app.js';
import { FAST_POLL, LONG_JOB_MS, sleep } from './support.js';

const PR = 'https://github.com/acme/docs/pull/77';

/**
 * The ways tracking lost a follow-up's result, posted twice or retried forever (issue 9), each reproduced
 * through the real app, the fake Slack and the simulator, on both stores.
 */
describe.each(storeKinds)('tracking that cannot lose, repeat or loop ($label)', (store) => {
  const h = useHarness({ store, simulator: { jobDurationMs: LONG_JOB_MS }, env: FAST_POLL });

  const outcomes = (rootTs: string) =>
    h.slack.messages.filter((m) => m.thread_ts === rootTs && JSON.stringify(m.metadata ?? '').includes('outcome'));

  it('a follow-up that lands while the outcome is being posted starts a round whose result is posted too', async () => {
    const app = await h.boot();
    const { jobId, rootTs } = await h.startJob('Race the outcome');
    // The outcome post takes a while; the follow-up arrives and is accepted meanwhile.
    h.slack.fail('chat.postMessage', { delayMs: 700 }, 1, (args) => args.thread_ts === rootTs);
    h.sim.endJob(jobId, { status: 'completed', prLink: PR });
    await eventually(() => h.slack.callsTo('chat.postMessage').some((c) => c.args.thread_ts === rootTs), 5_000, 'post');
    await h.deliver(threadReply(rootTs, { text: 'Also fix the title' }));
    await eventually(() => h.sim.getJob(jobId)?.status === 'active', 5_000, 'the follow-up accepted');

    await eventually(() => outcomes(rootTs).length === 1, 5_000, 'the first outcome');
    await sleep(400);
    expect(h.lastRootUpdate(rootTs)).toContain('Working'); // not "Pull request ready" while the agent works
    expect(await app.app.deps.store.jobs.active(TEST_PROJECT_ID)).toEqual([jobId]);

    h.sim.endJob(jobId, { status: 'completed', prLink: PR });
    await eventually(() => outcomes(rootTs).length === 2, 5_000, 'the follow-up round’s outcome');
    expect(String(outcomes(rootTs)[1]?.text)).toContain('updated the pull request');
    await eventually(() => h.lastRootUpdate(rootTs).includes('Pull request ready'), 3_000, 'root ended');
    await sleep(300);
    expect(outcomes(rootTs)).toHaveLength(2);
  });

  it('two follow-ups at once each get a round; the job’s one result is posted once', async () => {
    const app = await h.boot();
    const { jobId, rootTs } = await h.startJob('Two replies at once');
    await Promise.all([
      h.deliver(threadReply(rootTs, { text: 'First addition' })),
      h.deliver(threadReply(rootTs, { text: 'Second addition' })),
    ]);
    await eventually(
      () => h.slack.callsTo('reactions.add').filter((c) => c.args.name === 'white_check_mark').length === 2,
    );
    expect((await app.app.deps.store.jobs.get({ project: TEST_PROJECT_ID, jobId }))?.round).toBe(2);
    h.sim.endJob(jobId, { status: 'completed', prLink: PR });
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
      const app = await h.boot();
      const { jobId, rootTs } = await h.startJob(`Refused with ${code}`);
      h.slack.fail('chat.postMessage', { error: code }, 1_000, (args) => args.thread_ts === rootTs);
      h.sim.endJob(jobId, { status: 'completed', prLink: PR });
      const dm = await eventually(
        () => h.slack.callsTo('chat.postMessage').find((c) => c.args.channel === USER_ID),
        5_000,
        'the DM to the requester',
      );
      expect(String(dm.args.text)).toContain(code);
      expect(String(dm.args.text)).toContain(PR);
      await sleep(800); // many poll intervals
      expect(h.threadPosts(rootTs)).toHaveLength(1);
      expect(app.logs()).toContain('"event":"poller.outcome_undeliverable"');
      expect(await app.app.deps.store.jobs.active(TEST_PROJECT_ID)).toEqual([]);
    },
  );

  it('a 5xx after Slack stored the outcome: the thread is read before retrying, so it is there once', async () => {
    await h.boot();
    const { jobId, rootTs } = await h.startJob('Stored, then 503');
    h.slack.fail('chat.postMessage', { status: 503, afterStoring: true }, 2, (args) => args.thread_ts === rootTs);
    h.sim.endJob(jobId, { status: 'completed', prLink: PR });
    await eventually(() => h.lastRootUpdate(rootTs).includes('Pull request ready'), 8_000, 'the round ended');
    await sleep(400);
    expect(outcomes(rootTs)).toHaveLength(1);
    expect(h.threadPosts(rootTs)).toHaveLength(1); // one attempt: the retry found it in the thread
    expect(h.slack.callsTo('conversations.replies').length).toBeGreaterThan(0);
  });

  it('a 5xx after Slack stored the outcome, then a 429 on the thread read: the read is tried again, never skipped', async () => {
    await h.boot();
    const { jobId, rootTs } = await h.startJob('Stored, then 503, then a refused read');
    h.slack.fail('chat.postMessage', { status: 503, afterStoring: true }, 1, (args) => args.thread_ts === rootTs);
    // Longer than the client waits out itself (rate-wait.ts): the witness read gets the 429 back.
    h.slack.fail('conversations.replies', { status: 429, retryAfterSec: 4 }, 1, (args) => args.ts === rootTs);
    h.sim.endJob(jobId, { status: 'completed', prLink: PR });
    await eventually(() => h.lastRootUpdate(rootTs).includes('Pull request ready'), 12_000, 'the round ended');
    await sleep(400);
    expect(outcomes(rootTs)).toHaveLength(1);
    expect(h.threadPosts(rootTs)).toHaveLength(1); // the read that was refused was made again, not skipped
  });

  it('a 5xx after Slack stored the outcome in a thread past one page, whose next page is refused (a non-Marketplace app): never posted twice', async () => {
    await h.boot();
    const { jobId, rootTs } = await h.startJob('Stored, then 503, in a long thread');
    for (let i = 1; i <= 20; i++) h.say(USER_ID, CHANNEL_ID, `note ${i}`, { threadTs: rootTs });
    // 15 messages a page and one read a "minute" of 4.8 s: past what the client waits out itself (rate-wait.ts).
    h.slack.rateLimits.enable({ conversations: 'non-marketplace', windowScale: 0.08 });
    h.slack.rateLimits.set('chat.postMessage', []); // the root and the outcome within a second: not this test's 429
    h.slack.fail('chat.postMessage', { status: 503, afterStoring: true }, 1, (args) => args.thread_ts === rootTs);
    h.sim.endJob(jobId, { status: 'completed', prLink: PR });
    await eventually(() => outcomes(rootTs).length > 0, 6_000, 'the outcome stored');
    await eventually(() => h.slack.rateLimits.report()['conversations.replies']?.ratelimited, 6_000, 'page 2 refused');
    await sleep(6_000); // past the read's Retry-After: an attempt that forgot the earlier one would have posted
    expect(outcomes(rootTs)).toHaveLength(1);
    expect(h.threadPosts(rootTs)).toHaveLength(1);
  }, 20_000);

  it('a 5xx after Slack stored the outcome in a thread of 40 replies (a non-Marketplace app): found in one read, the PR link there once', async () => {
    const app = await h.boot();
    // A thread people wrote in over the last hour; someone asks the agent in it.
    const hourAgo = Date.now() - 3_600_000;
    const thread = h.say(USER_ID, CHANNEL_ID, 'Where do we say how retries work?', { at: hourAgo });
    for (let i = 1; i <= 40; i++) {
      h.say(USER_ID, CHANNEL_ID, `note ${i}`, { threadTs: thread.ts, at: hourAgo + i * 80_000 });
    }
    await h.deliver(h.say(USER_ID, CHANNEL_ID, '@Mintlify document the retry policy', { threadTs: thread.ts }).events);
    const ref = await h.jobOf(CHANNEL_ID, thread.ts);
    // From now on one read a minute, 15 messages a page (the start's own reads are not this test's).
    h.slack.rateLimits.reset();
    h.slack.rateLimits.enable({ conversations: 'non-marketplace' });
    h.slack.rateLimits.set('chat.postMessage', []); // the root and the outcome within a second: not this test's 429
    h.slack.fail('chat.postMessage', { status: 503, afterStoring: true }, 1, (args) => args.thread_ts === thread.ts);
    h.sim.endJob(ref.jobId, { status: 'completed', prLink: PR });
    const ended = () => app.app.deps.store.jobs.get(ref).then((r) => r?.ended === 'pull_request' || undefined);
    await eventually(ended, 8_000, 'the round ended');
    await sleep(400);
    expect(outcomes(thread.ts)).toHaveLength(1);
    expect(h.slack.messages.filter((m) => m.thread_ts === thread.ts && JSON.stringify(m).includes(PR))).toHaveLength(1);
    expect(h.slack.rateLimits.report()['conversations.replies']).toMatchObject({ calls: 1, ratelimited: 0 });
  });

  it('a 5xx after Slack stored the outcome past the pages a read looks through (2,000 replies): never posted twice', async () => {
    await h.boot();
    const { jobId, rootTs } = await h.startJob('Stored, then 503, in a very long thread');
    for (let i = 1; i <= 2_000; i++) h.say(USER_ID, CHANNEL_ID, `note ${i}`, { threadTs: rootTs });
    h.slack.fail('chat.postMessage', { status: 503, afterStoring: true }, 1, (args) => args.thread_ts === rootTs);
    h.sim.endJob(jobId, { status: 'completed', prLink: PR });
    // Ten pages of 200 (the replies are seconds old, so all are since the attempt): slow on a loaded machine.
    await eventually(() => h.slack.callsTo('conversations.replies').length >= 10, 15_000, 'the thread read');
    await sleep(1_000);
    expect(outcomes(rootTs)).toHaveLength(1);
    expect(h.threadPosts(rootTs)).toHaveLength(1);
  }, 30_000);

  it('a hung outcome post times out, is found or retried, and never duplicates', async () => {
    const app = await h.boot({ slackTimeoutMs: 300 });
    const { jobId, rootTs } = await h.startJob('Hung post');
    h.slack.fail('chat.postMessage', { delayMs: 1_000 }, 1, (args) => args.thread_ts === rootTs);
    h.sim.endJob(jobId, { status: 'completed', prLink: PR });
    await eventually(() => h.lastRootUpdate(rootTs).includes('Pull request ready'), 8_000, 'the round ended');
    await sleep(1_200); // the hung request is answered (and stored) long after the client gave up on it
    expect(outcomes(rootTs).length).toBeGreaterThanOrEqual(1);
    expect(outcomes(rootTs).length).toBeLessThanOrEqual(2);
    expect(app.logs()).toContain('"slack_error":"slack_webapi_request_error"');
  });

  it('a Slack 429 on the outcome waits out Retry-After and posts once', async () => {
    await h.boot();
    const { jobId, rootTs } = await h.startJob('Throttled outcome');
    h.slack.fail('chat.postMessage', { status: 429, retryAfterSec: 1 }, 1, (args) => args.thread_ts === rootTs);
    h.sim.endJob(jobId, { status: 'completed', prLink: PR });
    await eventually(() => outcomes(rootTs).length === 1, 6_000, 'the outcome');
    const [refused, delivered] = h.threadPosts(rootTs);
    expect((delivered?.at ?? 0) - (refused?.at ?? 0)).toBeGreaterThanOrEqual(950);
    await sleep(400);
    expect(outcomes(rootTs)).toHaveLength(1);
  });

  it('a job that ended long ago (past JOB_MAX_AGE_MS) still gets its result, not "expired"', async () => {
    const app = await h.boot({ env: { JOB_MAX_AGE_MS: '1000' } });
    const created = await app.app.deps.mintlify.createJob(TEST_PROJECT_ID, 'Finished while nobody watched');
    if (!created.ok) throw new Error(created.failure.code);
    const job = created.value;
    h.sim.endJob(job.id, { status: 'completed', prLink: PR });
    const rootTs = '1690000000.000100';
    const record = await app.app.deps.store.jobs.create(
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
    await app.app.deps.tracker.track(record);
    const [post] = await eventually(() => h.threadPosts(rootTs).length && h.threadPosts(rootTs), 5_000);
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
      const app = await h.boot();
      const { rootTs } = await h.startJob('Store fails on a reply');
      for (const instance of app.instances) breakStore(instance.deps.store); // wherever the reply is handled
      await h.deliver(threadReply(rootTs, { text: 'Keep <this> & that' }));
      const note = await eventually(() => h.slack.callsTo('chat.postEphemeral')[0], 5_000, 'the private note');
      expect(String(note.args.text)).toContain('storage is unavailable');
      expect(String(note.args.text)).toContain('Keep &lt;this&gt; &amp; that');
      expect(h.slack.callsTo('reactions.add').map((c) => c.args.name)).toContain('x');
      expect(h.sim.requests.filter((r) => r.path.endsWith('/message'))).toHaveLength(0);
    },
  );

  it('keeps retrying the round of a follow-up Mintlify accepted while the store is failing', async () => {
    const app = await h.boot();
    const { jobId, rootTs } = await h.startJob('Store flaps after acceptance');
    let failures = 0; // of the store of whichever instance handles the reply
    for (const { jobs } of app.instances.map((instance) => instance.deps.store)) {
      const startRound = jobs.startRound.bind(jobs);
      jobs.startRound = async (...args) => {
        if (failures++ < 2) throw new Error('Socket closed unexpectedly');
        return startRound(...args);
      };
    }
    const { jobs } = app.app.deps.store;
    await h.deliver(threadReply(rootTs, { text: 'After the flap' }));
    await eventually(() => h.slack.callsTo('reactions.add').some((c) => c.args.name === 'white_check_mark'), 8_000);
    expect((await jobs.get({ project: TEST_PROJECT_ID, jobId }))?.round).toBe(1);
    h.sim.endJob(jobId, { status: 'completed', prLink: PR });
    await eventually(() => outcomes(rootTs).length === 1, 5_000, 'the follow-up’s outcome');
    expect(app.logs()).toContain('"event":"store.retry"');
  });

  it('tells the person when an accepted follow-up cannot be tracked at all', async () => {
    const app = await h.boot();
    const { rootTs } = await h.startJob('Store gone after acceptance');
    for (const { jobs } of app.instances.map((instance) => instance.deps.store)) {
      jobs.startRound = async () => {
        throw new Error('Socket closed unexpectedly');
      };
    }
    await h.deliver(threadReply(rootTs, { text: 'Lost without a word?' }));
    const note = await eventually(() => h.slack.callsTo('chat.postEphemeral')[0], 15_000, 'the private note');
    expect(String(note.args.text)).toContain('The agent received your instruction');
    expect(String(note.args.text)).toContain('Lost without a word?');
    expect(h.slack.callsTo('reactions.add').map((c) => c.args.name)).toContain('white_check_mark');
  });
});
