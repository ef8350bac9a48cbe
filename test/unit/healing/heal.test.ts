import { describe, expect, it } from 'vitest';
import { OUTCOME_EVENT_TYPE } from '../../../src/agent/job-messages.js';
import { jobMetadata } from '../../../src/agent/job-metadata.js';
import { healLoss } from '../../../src/healing/start.js';
import { INSIGHTS_DIGEST } from '../../../src/insights/index.js';
import { keys } from '../../../src/store/keys.js';
import { digestMachinery } from '../../../src/visitors/digest/machinery.js';
import { digestMetadata } from '../../../src/visitors/digest/metadata.js';
import { getSubscription } from '../../../src/visitors/digest/store.js';
import { BOT_USER_ID } from '../../fakes/fake-slack-api.js';
import { jobBinding } from '../../fixtures/job.js';
import { CHANNEL_ID, USER_ID } from '../../fixtures/slack.js';
import { useAgentUnit } from '../agent/support.js';

const FAST = { retryMs: 10 };
const LOST_AT = 1_000;

describe('healing: what the store lost is rebuilt from Slack and the service', () => {
  const unit = useAgentUnit();

  /** A job running in the simulator whose root message (with its metadata) is in `channel`; the store knows nothing. */
  async function rootOfJob(prompt: string, { channel = CHANNEL_ID, createdAtMs = Date.now() } = {}) {
    const { deps } = unit();
    const created = await deps.mintlify.createJob('proj_test', prompt);
    if (!created.ok) throw new Error(created.failure.code);
    const jobId = created.value.id;
    const root = await deps.slack.chat.postMessage({ channel, text: `⏳ ${prompt}` });
    const ts = String(root.ts);
    const binding = jobBinding({ jobId, channel, threadTs: ts, statusTs: ts, prompt, createdAtMs });
    await deps.slack.chat.update({ channel, ts, text: `⏳ ${prompt}`, metadata: jobMetadata(binding) });
    return { jobId, ts, binding };
  }

  const outcomeIn = async (channel: string, threadTs: string, jobId: string, round: number) => {
    const payload = { project: 'proj_test', job_id: jobId, round };
    await unit().deps.slack.chat.postMessage({
      channel,
      thread_ts: threadTs,
      text: 'Pull request ready',
      metadata: { event_type: OUTCOME_EVENT_TYPE, event_payload: payload },
    });
  };

  const heal = (instanceId = 'healer') =>
    healLoss({ ...unit().deps, instanceId }, unit().engine, LOST_AT, digestMachinery, FAST);

  it('a running job whose record vanished is bound again from its root and its round polled, once', async () => {
    const { deps, tracked, slack } = unit();
    const { jobId, ts } = await rootOfJob('Document the retry policy');
    expect(await heal()).toMatchObject({ jobs: 1 });
    expect(tracked).toEqual([{ project: 'proj_test', jobId }]);
    const record = await deps.store.jobs.get({ project: 'proj_test', jobId });
    expect(record).toMatchObject({ channel: CHANNEL_ID, threadTs: ts, statusTs: ts, userId: USER_ID, round: 0 });
    expect(record?.prompt).toBe('Document the retry policy');
    expect(await deps.store.jobs.active('proj_test')).toEqual([jobId]);
    // Slack was read as the app's scopes allow: the channels it is in, their history with metadata.
    expect(slack.callsTo('users.conversations')[0]?.args).toMatchObject({ types: 'public_channel,private_channel' });
    const history = slack.callsTo('conversations.history').map((c) => c.args);
    expect(history.every((args) => String(args.include_all_metadata) === 'true')).toBe(true);
    expect(unit().logs.text()).toContain('"event":"store.job_healed"');

    // Healed: a second instance learning of the same loss finds it done and does nothing.
    expect(await heal('another')).toMatchObject({ jobs: 0, channels: 0 });
    expect(tracked).toHaveLength(1);
  });

  it('a job a reply bound again while healing asked the service keeps the round the reply started', async () => {
    const { deps, tracked } = unit();
    const { jobId, binding } = await rootOfJob('Document the retry policy');
    const getJob = deps.mintlify.getJob.bind(deps.mintlify);
    // The reply's follow-up lands between healing's look at the store and its answer from the service.
    deps.mintlify.getJob = async (project, id) => {
      await deps.store.jobs.startRound(binding, Date.now());
      return getJob(project, id);
    };
    expect(await heal()).toMatchObject({ jobs: 0 });
    expect(await deps.store.jobs.get({ project: 'proj_test', jobId })).toMatchObject({ round: 1 });
    expect(tracked).toEqual([]);
  });

  it('a job whose root is a plan card is bound again as one (its metadata says so), so the card stays a card', async () => {
    const { deps } = unit();
    const created = await deps.mintlify.createJob('proj_test', 'Document the webhooks');
    if (!created.ok) throw new Error(created.failure.code);
    const jobId = created.value.id;
    const root = await deps.slack.chat.postMessage({ channel: CHANNEL_ID, text: 'plan' });
    const ts = String(root.ts);
    const binding = jobBinding({
      jobId,
      channel: CHANNEL_ID,
      threadTs: ts,
      statusTs: ts,
      createdAtMs: Date.now(),
      root: 'card',
    });
    await deps.slack.chat.update({ channel: CHANNEL_ID, ts, text: 'plan', metadata: jobMetadata(binding) });
    expect(await heal()).toMatchObject({ jobs: 1 });
    expect(await deps.store.jobs.get({ project: 'proj_test', jobId })).toMatchObject({ statusTs: ts, root: 'card' });
  });

  it('an instance that claims the healing just after another finished it does nothing again', async () => {
    const { deps } = unit();
    await rootOfJob('Document the retry policy');
    // The other instance records the loss healed and releases its claim between this one's look and its claim.
    const claims = deps.store.claims;
    const racing = {
      ...claims,
      claim: async (key: string, owner: string, ttlMs: number) => {
        await deps.store.kv.set(keys.healed(), LOST_AT);
        return claims.claim(key, owner, ttlMs);
      },
    };
    const store = { ...deps.store, claims: racing };
    expect(
      await healLoss({ ...deps, store, instanceId: 'late' }, unit().engine, LOST_AT, digestMachinery, FAST),
    ).toMatchObject({
      jobs: 0,
    });
    expect(unit().logs.text()).not.toContain('"event":"store.healed"');
    expect(await claims.claim(keys.healing(), 'next', 1_000)).toBe(true); // released
  });

  it('a loss another instance dated a moment later, before this heal began, is not healed twice', async () => {
    await rootOfJob('Document the retry policy');
    // Both instances found the marker gone at the same moment; each dated the loss with its own reading.
    const secondNoticed = Date.now();
    const firstNoticed = secondNoticed - 3;
    const { deps, engine } = unit();
    await healLoss({ ...deps, instanceId: 'first' }, engine, firstNoticed, digestMachinery, FAST);
    expect(
      await healLoss({ ...deps, instanceId: 'second' }, engine, secondNoticed, digestMachinery, FAST),
    ).toMatchObject({ jobs: 0 });
    expect(
      unit()
        .logs.text()
        .match(/"event":"store.healed"/g),
    ).toHaveLength(1);
  });

  it('a job started by a mention (its status a reply in the person’s thread) is found in that thread and healed', async () => {
    const { deps, slack, tracked } = unit();
    const asked = slack.postAs(USER_ID, CHANNEL_ID, `<@${BOT_USER_ID}> document the webhooks`);
    const created = await deps.mintlify.createJob('proj_test', 'document the webhooks');
    if (!created.ok) throw new Error(created.failure.code);
    const jobId = created.value.id;
    const status = await deps.slack.chat.postMessage({ channel: CHANNEL_ID, thread_ts: asked.ts, text: '⏳ Working' });
    const statusTs = String(status.ts);
    const binding = jobBinding({ jobId, threadTs: asked.ts, statusTs, thread: 'joined', createdAtMs: Date.now() });
    await deps.slack.chat.update({ channel: CHANNEL_ID, ts: statusTs, text: '⏳', metadata: jobMetadata(binding) });
    // A thread the bot never joined is not opened.
    const chatter = slack.postAs(USER_ID, 'C234GENERAL', 'Lunch?');
    slack.postAs('U456BOB', 'C234GENERAL', 'Tacos', { threadTs: chatter.ts });

    expect(await heal()).toMatchObject({ jobs: 1 });
    expect(tracked).toEqual([{ project: 'proj_test', jobId }]);
    const record = await deps.store.jobs.get({ project: 'proj_test', jobId });
    expect(record).toMatchObject({ threadTs: asked.ts, statusTs, thread: 'joined', round: 0 });
    const opened = slack.callsTo('conversations.replies').map((c) => c.args.ts);
    expect(opened).toContain(asked.ts);
    expect(opened).not.toContain(chatter.ts);
  });

  it('leaves a job the store still has, one that ended with its outcome in the thread, one the service lost', async () => {
    const { deps, sim, tracked } = unit();
    const known = await rootOfJob('Still in the store');
    await deps.store.jobs.create(known.binding, { status: 'active' }, deps.now());
    const ended = await rootOfJob('Ended and posted');
    sim.endJob(ended.jobId, { status: 'completed', prLink: 'https://github.com/acme/docs/pull/5' });
    await outcomeIn(CHANNEL_ID, ended.ts, ended.jobId, 0);
    const root = await deps.slack.chat.postMessage({ channel: CHANNEL_ID, text: 'A job the service never had' });
    const ts = String(root.ts);
    const lost = jobBinding({ jobId: 'job_unknown', threadTs: ts, statusTs: ts, createdAtMs: Date.now() });
    await deps.slack.chat.update({ channel: CHANNEL_ID, ts, text: 'x', metadata: jobMetadata(lost) });

    expect(await heal()).toMatchObject({ jobs: 0 });
    // Only the known job's round has its poll added again, as it stands (one job on the engine if it has one).
    expect(tracked).toEqual([{ project: 'proj_test', jobId: known.jobId }]);
    expect(await deps.store.jobs.get({ project: 'proj_test', jobId: known.jobId })).toMatchObject({ round: 0 });
    expect(await deps.store.jobs.get({ project: 'proj_test', jobId: ended.jobId })).toBeUndefined();
  });

  it('a job an interrupted heal bound again before adding its poll (a stop, a crash) gets its poll from the next heal', async () => {
    const { deps, tracked } = unit();
    const { jobId, binding } = await rootOfJob('Bound, never polled');
    // What healJob's rebind left when the process ended before `track`.
    await deps.store.jobs.rebind(binding, { status: 'active' }, binding.createdAtMs);
    await heal();
    expect(tracked).toEqual([{ project: 'proj_test', jobId }]);
  });

  it('an ended job whose outcome never reached its thread is bound, so its poll posts it', async () => {
    const { deps, sim, tracked } = unit();
    const { jobId } = await rootOfJob('Ended while the store was empty');
    sim.endJob(jobId, { status: 'completed', prLink: 'https://github.com/acme/docs/pull/6' });
    expect(await heal()).toMatchObject({ jobs: 1 });
    expect(tracked).toEqual([{ project: 'proj_test', jobId }]);
    expect(await deps.store.jobs.get({ project: 'proj_test', jobId })).toMatchObject({ round: 0, ended: null });
  });

  it('a job in a follow-up’s round (an outcome in its thread, the service still working) comes back in that round', async () => {
    const { deps } = unit();
    const { jobId, ts } = await rootOfJob('Followed up');
    await outcomeIn(CHANNEL_ID, ts, jobId, 0);
    await heal();
    expect(await deps.store.jobs.get({ project: 'proj_test', jobId })).toMatchObject({ round: 1, ended: null });
  });

  it('skips jobs older than the job age limit, another project’s, and channels the bot is not in', async () => {
    const { deps, slack, tracked } = unit();
    await rootOfJob('Too old', { createdAtMs: Date.now() - deps.config.jobMaxAgeMs - 60_000 });
    slack.workspace.channels.push({ id: 'C567NOBOT', name: 'no-bot', botMember: false });
    const other = await rootOfJob('Another project');
    const ts = other.ts;
    const foreign = jobBinding({ project: 'proj_other', jobId: other.jobId, threadTs: ts, statusTs: ts });
    await deps.slack.chat.update({ channel: CHANNEL_ID, ts, text: 'x', metadata: jobMetadata(foreign) });
    expect(await heal()).toMatchObject({ jobs: 0 });
    expect(tracked).toEqual([]);
    expect(slack.callsTo('conversations.history').some((c) => c.args.channel === 'C567NOBOT')).toBe(false);
  });

  it('a digest subscription comes back from the channel’s newest digest, with its scheduler', async () => {
    const { deps, engine } = unit();
    const schedule = { cadence: 'weekly' as const, hour: 8, minute: 30, weekday: 2, tz: 'Europe/Paris' };
    const subscription = { channel: CHANNEL_ID, project: 'proj_test', createdBy: USER_ID, createdAt: 5 };
    const older = digestMetadata(
      { ...subscription, schedule: { cadence: 'daily', hour: 9, minute: 0 } },
      {
        from: '2026-11-01',
        to: '2026-11-01',
      },
    );
    await deps.slack.chat.postMessage({ channel: CHANNEL_ID, text: 'Daily visitors digest', metadata: older });
    const newer = digestMetadata({ ...subscription, schedule }, { from: '2026-11-16', to: '2026-11-22' });
    await deps.slack.chat.postMessage({ channel: CHANNEL_ID, text: 'Weekly visitors digest', metadata: newer });

    expect(await heal()).toMatchObject({ subscriptions: 1, schedulers: 1 });
    expect(await getSubscription(deps, CHANNEL_ID)).toEqual({ ...subscription, schedule });
    expect((await engine.schedules('digests')).map((s) => s.id)).toEqual([`digest/${CHANNEL_ID}`]);
  });

  it('an insights digest subscription comes back beside the visitors digest of the same channel', async () => {
    const { deps, engine } = unit();
    const schedule = { cadence: 'weekly' as const, hour: 16, minute: 30, weekday: 5 };
    const subscription = { channel: CHANNEL_ID, project: 'proj_test', createdBy: USER_ID, createdAt: 5 };
    const period = { from: '2026-11-16', to: '2026-11-22' };
    const insights = digestMetadata({ ...subscription, schedule }, period, INSIGHTS_DIGEST);
    await deps.slack.chat.postMessage({ channel: CHANNEL_ID, text: 'Weekly insights digest', metadata: insights });
    const visitors = digestMetadata({ ...subscription, schedule: { cadence: 'daily', hour: 9, minute: 0 } }, period);
    await deps.slack.chat.postMessage({ channel: CHANNEL_ID, text: 'Daily visitors digest', metadata: visitors });

    expect(await heal()).toMatchObject({ subscriptions: 2, schedulers: 2 });
    expect(await getSubscription(deps, CHANNEL_ID, INSIGHTS_DIGEST)).toEqual({ ...subscription, schedule });
    expect(await getSubscription(deps, CHANNEL_ID)).toMatchObject({ schedule: { cadence: 'daily' } });
    const ids = (await engine.schedules('digests')).map((s) => s.id).sort();
    expect(ids).toEqual([`digest/${CHANNEL_ID}`, `insights-digest/${CHANNEL_ID}`]);
  });

  it('a non-Marketplace app (one read a minute, 15 messages a page) heals a channel longer than a page, page by page', async () => {
    const { slack, tracked } = unit();
    const { jobId } = await rootOfJob('Older than a page of history');
    for (let i = 1; i <= 20; i++)
      await unit().deps.slack.chat.postMessage({ channel: CHANNEL_ID, text: `chatter ${i}` });
    // A "minute" of 3.6 s: a Retry-After (4 s) longer than the client waits out itself (rate-wait.ts).
    slack.rateLimits.enable({ conversations: 'non-marketplace', windowScale: 0.06 });
    slack.rateLimits.set('chat.postMessage', []);
    expect(await heal()).toMatchObject({ jobs: 1 });
    expect(tracked).toEqual([{ project: 'proj_test', jobId }]);
    expect(slack.rateLimits.report()['conversations.history']?.ratelimited).toBeGreaterThan(0);
    expect(unit().logs.text()).not.toContain('"event":"store.heal_retry"'); // waited out, not begun again
  }, 30_000);

  it('waits while another instance heals and is done when it records the loss healed', async () => {
    const { deps, tracked } = unit();
    await rootOfJob('Healed elsewhere');
    await deps.store.claims.claim(keys.healing(), 'other', 60_000);
    const waiting = heal();
    await deps.store.kv.set(keys.healed(), LOST_AT);
    expect(await waiting).toMatchObject({ jobs: 0, channels: 0 });
    expect(tracked).toEqual([]);
  });

  it('a healer stopped midway (SIGTERM, a deploy) lets its claim go at once and stops without a retry', async () => {
    const { deps, slack } = unit();
    await rootOfJob('Stopped while healing');
    const stopping = new AbortController();
    // The stop arrives as the heal reads the channel's history back.
    slack.fail('conversations.history', { storeThen: () => stopping.abort() }, 1);
    const healed = healLoss({ ...deps, stopping: stopping.signal }, unit().engine, LOST_AT, digestMachinery, FAST);
    expect(await healed).toMatchObject({ jobs: 0 });
    expect(await deps.store.claims.claim(keys.healing(), 'other', 60_000)).toBe(true); // let go, not lapsing
    expect(unit().logs.text()).not.toContain('"event":"store.heal_retry"'); // a stop is not a failure
  });

  it('a failure midway (the service not answering) is tried again until it completes', async () => {
    const { deps, sim, tracked } = unit();
    const { jobId } = await rootOfJob('Service blips');
    sim.injectFault({ kind: 'status', status: 503, count: 3, match: { method: 'GET' } }); // a GET and its 2 retries
    expect(await heal()).toMatchObject({ jobs: 1 });
    expect(tracked).toEqual([{ project: 'proj_test', jobId }]);
    expect(unit().logs.text()).toContain('"event":"store.heal_retry"');
    expect(await deps.store.claims.claim(keys.healing(), 'next', 1_000)).toBe(true); // released
  });
});
