import { describe, expect, it } from 'vitest';
import { homeOpened } from '../fixtures/conversation.js';
import { threadReply, USER_ID } from '../fixtures/slack.js';
import { useHarness } from '../support/harness.js';
import { storeKinds } from '../support/redis.js';
import { eventually } from '../support/test-app.js';
import { FAST_POLL, LONG_JOB_MS, runningJobs, sleep } from './support.js';

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
