import { describe, expect, it } from 'vitest';
import { homeOpened } from '../fixtures/conversation.js';
import { threadReply, USER_ID } from '../fixtures/slack.js';
import { useHarness } from '../support/harness.js';
import { storeKinds } from '../support/redis.js';
import { eventually, TEST_PROJECT_ID, type TestApp } from '../support/test-app.js';
import { FAST_POLL, LONG_JOB_MS, sleep } from './support.js';

const PR = 'https://github.com/acme/docs/pull/429';
const DONE = 'Pull request ready';
const RUNNING_JOBS = 100;
/** Slack's minute, shortened for the app and the stand-in alike. */
const MINUTE_MS = 1_000;

/** Slack's rate tiers (issue 20, defect 5): a 429 delays a final state, it never loses it. */
describe.each(storeKinds)('Slack rate tiers ($label)', (store) => {
  const h = useHarness({ store, simulator: { jobDurationMs: LONG_JOB_MS }, env: FAST_POLL });

  const rootUpdates = (rootTs: string) => h.slack.callsTo('chat.update').filter((c) => c.args.ts === rootTs);
  const saysDone = (args: Record<string, unknown>) => JSON.stringify(args.blocks ?? '').includes(DONE);
  const homes = () => h.slack.callsTo('views.publish').filter((c) => c.args.user_id === USER_ID);

  it('one 429 on the final root update: the root still ends "done", and App Home follows', async () => {
    await h.boot();
    const { jobId, rootTs } = await h.startJob('Throttled root');
    await h.deliver(homeOpened(USER_ID, 'home'));
    await eventually(() => homes().length > 0, 3_000, 'Home published');
    h.slack.fail('chat.update', { status: 429, retryAfterSec: 1 }, 1, (a) => a.ts === rootTs && saysDone(a));
    h.slack.fail('views.publish', { status: 429, retryAfterSec: 1 }, 1, (a) => JSON.stringify(a.view).includes(DONE));
    h.sim.endJob(jobId, { status: 'completed', prLink: PR });

    await eventually(() => rootUpdates(rootTs).filter((c) => saysDone(c.args)).length === 2, 6_000, 'root retried');
    const stored = h.slack.messages.find((m) => m.ts === rootTs);
    expect(JSON.stringify(stored?.blocks)).toContain(DONE);
    await eventually(() => homes().filter((c) => JSON.stringify(c.args.view).includes(DONE)).length === 2, 6_000);
    const [refused, landed] = rootUpdates(rootTs).filter((c) => saysDone(c.args));
    expect((landed?.at ?? 0) - (refused?.at ?? 0)).toBeGreaterThanOrEqual(950);
  });

  it('a 429 on any other call (the 👀 on a follow-up) is waited out inside the client, then made again', async () => {
    await h.boot();
    const { rootTs } = await h.startJob('Throttled reaction');
    h.slack.fail('reactions.add', { status: 429, retryAfterSec: 1 }, 1, (a) => a.name === 'eyes');
    await h.deliver(threadReply(rootTs, { text: 'Also fix the title' }));
    const eyes = () => h.slack.callsTo('reactions.add').filter((c) => c.args.name === 'eyes');
    await eventually(() => eyes().length === 2, 5_000, 'the 👀 made again');
    const [refused, landed] = eyes();
    expect((landed?.at ?? 0) - (refused?.at ?? 0)).toBeGreaterThanOrEqual(950);
  });

  /**
   * `n` jobs running in the simulator, each with its root message in a channel of its own (chat.postMessage's one
   * message a second per channel is not what this is about) unless `channel` names one for all, tracked by the app.
   */
  async function runningJobs(app: TestApp, n: number, channelOf = (i: number) => `C${String(i).padStart(3, '0')}JOBS`) {
    const { deps } = app.app;
    const jobs: { jobId: string; rootTs: string }[] = [];
    for (let i = 0; i < n; i++) {
      const created = await deps.mintlify.createJob(TEST_PROJECT_ID, `Job ${i}`);
      if (!created.ok) throw new Error(created.failure.code);
      const channel = channelOf(i);
      const root = await deps.slack.chat.postMessage({ channel, text: `⏳ Job ${i}` });
      const rootTs = String(root.ts);
      const base = { project: TEST_PROJECT_ID, jobId: created.value.id, channel, userId: USER_ID };
      const record = await deps.store.jobs.create(
        { ...base, threadTs: rootTs, statusTs: rootTs, prompt: `Job ${i}`, createdAtMs: Date.now() },
        { status: 'active' },
        Date.now(),
      );
      await deps.tracker.track(record);
      jobs.push({ jobId: created.value.id, rootTs });
    }
    return jobs;
  }

  it(`${RUNNING_JOBS} running jobs under Slack's tiers: no 429, elapsed refreshes within budget, every final state lands`, async () => {
    const env = { POLL_INTERVAL_MS: '200', POLL_MAX_INTERVAL_MS: '1000', SLACK_RATE_WINDOW_MS: String(MINUTE_MS) };
    const app = await h.boot({ env });
    const jobs = await runningJobs(app, RUNNING_JOBS);
    h.slack.rateLimits.reset();
    h.slack.rateLimits.enable({ windowScale: MINUTE_MS / 60_000 });
    await sleep(3 * MINUTE_MS);
    const running = h.slack.rateLimits.report();
    expect(running['chat.update']?.calls).toBeGreaterThan(0); // elapsed times were refreshed…
    expect(running['chat.update']?.peakPerMinute).toBeLessThanOrEqual(50); // …within Tier 3

    for (const { jobId } of jobs) h.sim.endJob(jobId, { status: 'completed', prLink: PR });
    const roots = new Set(jobs.map((j) => j.rootTs));
    const ended = () => h.slack.messages.filter((m) => roots.has(m.ts) && JSON.stringify(m.blocks).includes(DONE));
    await eventually(() => ended().length === RUNNING_JOBS, 30_000, 'every root says done');
    const report = h.slack.rateLimits.report();
    console.info(`${RUNNING_JOBS} running jobs, Web API calls per (scaled) minute:`, JSON.stringify(report));
    for (const [method, seen] of Object.entries(report)) expect(seen.ratelimited, method).toBe(0);
    for (const { rootTs } of jobs) expect(h.threadPosts(rootTs).length).toBeGreaterThanOrEqual(1);
  }, 60_000);

  it('60 jobs completing at once in one workspace, its budget spent on elapsed times: every root final within 75 s, within Tier 3', async () => {
    // Slack's minute as 20 s here (the app's window and the stand-in's alike): 75 s of Slack's time is 25 s. Shorter,
    // and posting 60 outcomes on a busy 2-core box takes a noticeable part of Slack's (scaled) minute.
    const minuteMs = 20_000;
    const env = { POLL_INTERVAL_MS: '200', POLL_MAX_INTERVAL_MS: '500', SLACK_RATE_WINDOW_MS: String(minuteMs) };
    const app = await h.boot({ env });
    const jobs = await runningJobs(app, 60);
    // Jobs that keep running meanwhile, wanting their elapsed times refreshed while the 60 finals wait.
    await runningJobs(app, 10, (i) => `C${String(i).padStart(3, '0')}MORE`);
    h.slack.rateLimits.reset();
    h.slack.rateLimits.enable({ windowScale: minuteMs / 60_000 });
    await sleep(1.1 * minuteMs); // elapsed times are due after a minute: they spend their budget at once
    expect(h.slack.rateLimits.report()['chat.update']?.calls).toBeGreaterThanOrEqual(10);

    const endedAt = Date.now();
    for (const { jobId } of jobs) h.sim.endJob(jobId, { status: 'completed', prLink: PR });
    const roots = new Set(jobs.map((j) => j.rootTs));
    const ended = () => h.slack.messages.filter((m) => roots.has(m.ts) && saysDone({ blocks: m.blocks }));
    await eventually(() => ended().length === jobs.length, 5 * minuteMs, 'every root says done');
    const tookMs = Date.now() - endedAt;
    const report = h.slack.rateLimits.report();
    console.info(`60 finals took ${tookMs} ms (a minute is ${minuteMs} ms); calls:`, JSON.stringify(report));
    expect(tookMs).toBeLessThanOrEqual((75 / 60) * minuteMs);
    expect(report['chat.update']?.peakPerMinute).toBeLessThanOrEqual(50);
    expect(report['chat.update']?.ratelimited).toBe(0);
    for (const { rootTs } of jobs) expect(h.threadPosts(rootTs)).toHaveLength(1);
  }, 180_000);

  it('10 outcomes due at once in one channel (one post a second there): each posted once, no thread read after a 429', async () => {
    const app = await h.boot({ env: { POLL_INTERVAL_MS: '200', POLL_MAX_INTERVAL_MS: '500' } });
    const jobs = await runningJobs(app, 10, () => 'C000BUSY');
    h.slack.rateLimits.reset();
    h.slack.rateLimits.enable();
    const stored = (rootTs: string) => h.slack.messages.filter((m) => m.thread_ts === rootTs && m.ts !== rootTs);
    for (const { jobId } of jobs) h.sim.endJob(jobId, { status: 'completed', prLink: PR });
    await eventually(() => jobs.every((j) => stored(j.rootTs).length >= 1), 45_000, 'every outcome');
    await sleep(500);
    for (const { rootTs } of jobs) expect(stored(rootTs)).toHaveLength(1); // the refused calls stored nothing
    expect(h.slack.rateLimits.report()['chat.postMessage']?.ratelimited).toBeGreaterThan(0); // Slack did push back
    expect(h.slack.callsTo('conversations.replies')).toEqual([]); // and no Tier 3 read was spent on it
  }, 60_000);
});
