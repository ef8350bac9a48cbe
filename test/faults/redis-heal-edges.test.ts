import { describe, expect, it } from 'vitest';
import { keys } from '../../src/store/keys.js';
import { useHarness } from '../support/harness.js';
import { dropNamespace, redisAvailable, redisStore } from '../support/redis.js';
import { settle } from '../support/steps.js';
import { eventually, TEST_PROJECT_ID } from '../support/test-app.js';
import { countEvents as count, FAST_POLL, LONG_JOB_MS, redisGet, useRedisProxy } from './support.js';

// Healing at its edges: Redis misbehaving as the loss watch starts, or as a loss is being healed.

const PR = 'https://github.com/acme/docs/pull/88';

/** Channels the bot is in besides the test's own: more than one minute of Tier 3 reads. */
const CHANNELS = 80;
/** Slack's minute, shortened for the stand-in: a 429's Retry-After (up to 6 s) is more than the client waits itself. */
const MINUTE_MS = 6_000;

describe.skipIf(!redisAvailable)('healing at its edges', { timeout: 60_000 }, () => {
  const h = useHarness({ store: redisStore, simulator: { jobDurationMs: LONG_JOB_MS }, env: FAST_POLL });
  const proxy = useRedisProxy(h);

  it('a marker read Redis drops as the app starts still leaves the app watching for a loss, and healing it', async () => {
    proxy().dropCommandsWith('store:marker'); // Redis drops the start's look at the marker (a blip, a failover)
    const app = await h.boot({ redisUrl: proxy().url });
    proxy().dropCommandsWith(undefined);
    expect(app.logs()).toContain('"op":"store.marker"');
    const { jobId, rootTs } = await h.startJob('Document the retry policy');
    // The watch starts at its next check (every 5 s), before a loss it can notice.
    const marker = () => app.app.deps.store.kv.get(keys.storeMarker());
    await eventually(async () => (await marker()) !== undefined, 10_000, 'the marker written');

    await dropNamespace(h.namespace); // FLUSHDB, as far as this app can tell
    await eventually(() => count(app.logs(), 'store.data_lost') === 1, 15_000, 'the loss noticed');
    await eventually(() => count(app.logs(), 'store.healed') === 1, 15_000, 'healed');
    h.sim.endJob(jobId, { status: 'completed', prLink: PR });
    const prPosts = () => h.threadPosts(rootTs).filter((c) => String(c.args.text).includes(PR));
    await eventually(() => prPosts().length === 1, 10_000, 'the PR in its thread');
  });

  it('many channels under Slack’s Tier 3: a 429 on a channel’s history pauses the heal there for its Retry-After, not a 429 for every channel left', async () => {
    const app = await h.boot({ redisUrl: proxy().url });
    const { jobId, rootTs } = await h.startJob('Document the retry policy');
    for (let i = 0; i < CHANNELS; i++) h.slack.workspace.channels.push({ id: `C${1000 + i}MANY`, name: `many-${i}` });
    h.slack.rateLimits.reset();
    h.slack.rateLimits.enable({ windowScale: MINUTE_MS / 60_000 });

    await dropNamespace(h.namespace);
    await eventually(() => count(app.logs(), 'store.healed') === 1, 60_000, 'healed');
    const history = h.slack.rateLimits.report()['conversations.history'];
    expect(history?.calls).toBeGreaterThan(50); // more than one (scaled) minute's worth, so Slack pushed back
    expect(history?.ratelimited).toBeLessThanOrEqual(3);
    expect(count(app.logs(), 'store.job_healed')).toBe(1);
    expect(count(app.logs(), 'store.heal_retry')).toBe(0); // each Retry-After waited out where it was met
    h.slack.rateLimits.disable();
    h.sim.endJob(jobId, { status: 'completed', prLink: PR });
    const prPosts = () => h.threadPosts(rootTs).filter((c) => String(c.args.text).includes(PR));
    await eventually(() => prPosts().length === 1, 10_000, 'the PR in its thread');
  }, 90_000);

  it('a healer stopped midway (SIGTERM, a deploy) lets its claim go: another instance heals at once, not a minute later', async () => {
    const apps = [await h.boot({ redisUrl: proxy().url }), await h.boot({ redisUrl: proxy().url })];
    const { jobId, rootTs } = await h.startJob('Document the retry policy', { app: apps[0] });
    for (let i = 0; i < 8; i++) h.slack.workspace.channels.push({ id: `C${2000 + i}SLOW`, name: `slow-${i}` });
    // Reading each of those channels back takes a second: the heal is under way for a while.
    h.slack.fail('conversations.history', { delayMs: 1_000 }, 8, (args) => String(args.channel).endsWith('SLOW'));

    await dropNamespace(h.namespace);
    const holder = await eventually(
      async () => {
        const owner = await redisGet(`${h.namespace}:${keys.healing()}`);
        return apps.find((app) => app.app.deps.instanceId === owner);
      },
      15_000,
      'one instance healing',
    );
    await holder.stop();
    const stoppedAt = Date.now();
    const other = apps.find((app) => app !== holder) as (typeof apps)[number];
    await eventually(() => count(other.logs(), 'store.healed') === 1, 30_000, 'healed by the other');
    expect(Date.now() - stoppedAt).toBeLessThan(30_000);
    expect(count(holder.logs(), 'store.heal_retry')).toBe(0); // a stop is not a failure
    h.sim.endJob(jobId, { status: 'completed', prLink: PR });
    const prPosts = () => h.threadPosts(rootTs).filter((c) => String(c.args.text).includes(PR));
    await eventually(() => prPosts().length === 1, 10_000, 'the PR in its thread');
  }, 90_000);
  it('flushed again while the first loss is being healed: the second loss is healed too, the PR posted once', async () => {
    const app = await h.boot({ redisUrl: proxy().url });
    const { jobId, rootTs } = await h.startJob('Document the retry policy');
    for (let i = 0; i < 4; i++) h.slack.workspace.channels.push({ id: `C${3000 + i}SLOW`, name: `slow-${i}` });
    h.slack.fail('conversations.history', { delayMs: 1_000 }, 4, (args) => String(args.channel).endsWith('SLOW'));

    await dropNamespace(h.namespace);
    await eventually(() => count(app.logs(), 'store.job_healed') === 1, 15_000, 'the job healed');
    await dropNamespace(h.namespace); // the heal goes on through the slow channels
    await eventually(() => count(app.logs(), 'store.data_lost') === 2, 15_000, 'the second loss noticed');
    await eventually(() => count(app.logs(), 'store.job_healed') === 2, 30_000, 'the job healed again');
    const record = () => app.app.deps.store.jobs.get({ project: TEST_PROJECT_ID, jobId });
    expect(await record()).toMatchObject({ round: 0, ended: null });
    h.sim.endJob(jobId, { status: 'completed', prLink: PR });
    const prPosts = () => h.threadPosts(rootTs).filter((c) => String(c.args.text).includes(PR));
    await eventually(() => prPosts().length === 1, 10_000, 'the PR in its thread');
    await settle(1_500);
    expect(prPosts()).toHaveLength(1);
  }, 90_000);
  it('an instance that starts on the emptied store before a running one noticed the loss: the loss is still noticed and healed', async () => {
    const running = await h.boot({ redisUrl: proxy().url });
    const { jobId, rootTs } = await h.startJob('Document the retry policy', { app: running });
    proxy().pause(); // the running instance does not get to read the marker before the next one starts
    await dropNamespace(h.namespace);
    const started = await h.boot(); // straight to Redis: it finds no marker
    await proxy().resume();

    const logs = () => running.logs() + started.logs();
    await eventually(() => count(logs(), 'store.data_lost') === 1, 15_000, 'the loss noticed');
    await eventually(() => count(logs(), 'store.healed') === 1, 15_000, 'healed');
    h.sim.endJob(jobId, { status: 'completed', prLink: PR });
    const prPosts = () => h.threadPosts(rootTs).filter((c) => String(c.args.text).includes(PR));
    await eventually(() => prPosts().length === 1, 10_000, 'the PR in its thread');
  });

  it('instances starting together on an empty store: one first start, no loss', async () => {
    const apps = await Promise.all([h.boot(), h.boot(), h.boot({ redisUrl: proxy().url })]);
    await settle(11_000); // two checks of each
    for (const app of apps) expect(app.logs()).not.toContain('"event":"store.data_lost"');
  }, 30_000);
});
