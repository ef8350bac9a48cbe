import { describe, expect, it } from 'vitest';
import { keys } from '../../../../src/store/keys.js';
import { deliverDigest, runScheduled } from '../../../../src/visitors/digest/deliver.js';
import { VISITORS_DIGEST } from '../../../../src/visitors/digest/kind.js';
import { digestPeriod } from '../../../../src/visitors/digest/schedule.js';
import { scheduleDigest } from '../../../../src/visitors/digest/scheduler.js';
import { runScheduledDigest, sendDigest } from '../../../../src/visitors/digest/send.js';
import {
  listSubscriptions,
  markPosting,
  markSent,
  type Subscription,
  saveSubscription,
} from '../../../../src/visitors/digest/store.js';
import { manageDigest } from '../../../../src/visitors/digest/subscribe.js';
import { AUDIENCE, fakeVisitors, NOW, PROJECT } from '../fake-deps.js';

/** #docs gets a weekly digest on Mondays at 09:00 UTC, set up a month before `NOW` (Sunday 22 Nov 2026). */
const SUBSCRIPTION: Subscription = {
  channel: 'C123DOCS',
  project: PROJECT,
  schedule: { cadence: 'weekly', hour: 9, minute: 0, weekday: 1 },
  createdBy: 'U123ALICE',
  createdAt: Date.parse('2026-10-20T00:00:00Z'),
};
const DUE = Date.parse('2026-11-16T09:00:00Z');

function setup() {
  const world = fakeVisitors();
  const postsIn = () => world.slack.calls.filter((c) => c.method === 'chat.postMessage');
  return {
    ...world,
    /** Digests: the posts carrying a digest's metadata. */
    posts: () => postsIn().filter((c) => c.args.metadata !== undefined),
    charts: () => postsIn().filter((c) => JSON.stringify(c.args.blocks).includes('data_visualization')),
  };
}

describe('sendDigest', () => {
  it('posts the digest of the week the due time closes, with its chart drawn by Slack', async () => {
    const { deps, slack, posts, charts } = setup();
    expect(await sendDigest(deps, SUBSCRIPTION, DUE)).toBe('posted');
    expect(posts()).toHaveLength(1);
    expect(posts()[0]?.args).toMatchObject({
      channel: 'C123DOCS',
      metadata: { event_type: 'mintlify_visitors_digest', event_payload: { cadence: 'weekly', from: '2026-11-09' } },
    });
    expect(String(posts()[0]?.args.text)).toContain('Weekly visitors digest · 9–15 Nov 2026');
    expect(charts()).toHaveLength(1);
    expect(charts()[0]?.args.channel).toBe('C123DOCS');
    expect(slack.calls.filter((c) => c.method === 'files.completeUploadExternal')).toHaveLength(0);
  });

  it('says failed when the service fails, and posts when it answers again', async () => {
    const { deps, service, posts, logs } = setup();
    service.failures.push({ code: 'unavailable', reason: '503', ambiguous: true, lost: 'error_status', status: 503 });
    expect(await sendDigest(deps, SUBSCRIPTION, DUE)).toBe('failed');
    expect(posts()).toEqual([]);
    expect(logs.text()).toContain('"reason":"service"');
    expect(await sendDigest(deps, SUBSCRIPTION, DUE)).toBe('posted');
  });

  it('ends the subscription of a channel the bot was removed from, and its scheduler', async () => {
    const { deps, slack, logs, engine } = setup();
    await saveSubscription(deps, SUBSCRIPTION);
    await scheduleDigest(deps, SUBSCRIPTION);
    slack.failNext('chat.postMessage', 'not_in_channel');
    expect(await sendDigest(deps, SUBSCRIPTION, DUE)).toBe('ended');
    expect(await listSubscriptions(deps)).toEqual([]);
    expect(await engine.schedules('digests')).toEqual([]);
    expect(logs.text()).toContain('"event":"visitors.digest_ended"');
  });

  it('after an ambiguous failure, finds the digest Slack stored anyway and does not post it again', async () => {
    const { deps, slack, posts, logs } = setup();
    slack.failNext('chat.postMessage', 'internal_error');
    slack.history.push({
      ts: '1700000000.000900',
      metadata: { event_type: 'mintlify_visitors_digest', event_payload: { cadence: 'weekly', from: '2026-11-09' } },
    });
    expect(await sendDigest(deps, SUBSCRIPTION, DUE)).toBe('posted');
    expect(logs.text()).toContain('"event":"visitors.digest_found"');
    expect(posts()).toHaveLength(1);
  });

  it('after an ambiguous failure with no digest in the channel, says failed', async () => {
    const { deps, slack } = setup();
    slack.failNext('chat.postMessage', 'internal_error');
    expect(await sendDigest(deps, SUBSCRIPTION, DUE)).toBe('failed');
    expect(await sendDigest(deps, SUBSCRIPTION, DUE)).toBe('posted');
  });
});

describe("runScheduledDigest: one occurrence of a subscription's scheduler", () => {
  it('sends the digest of the latest scheduled instant', async () => {
    const { deps, posts } = setup();
    await saveSubscription(deps, SUBSCRIPTION);
    await runScheduledDigest(deps, { channel: SUBSCRIPTION.channel });
    expect(String(posts()[0]?.args.text)).toContain('Weekly visitors digest · 9–15 Nov 2026'); // due Mon 16 Nov
  });

  it('rejects when the digest did not go out, so the engine tries the occurrence again', async () => {
    const { deps, service, posts } = setup();
    await saveSubscription(deps, SUBSCRIPTION);
    service.failures.push({ code: 'unavailable', reason: '503', ambiguous: true, lost: 'error_status', status: 503 });
    await expect(runScheduledDigest(deps, { channel: SUBSCRIPTION.channel })).rejects.toThrow('did not go out');
    await runScheduledDigest(deps, { channel: SUBSCRIPTION.channel });
    expect(posts()).toHaveLength(1);
  });

  it('an occurrence started a moment before its time by this worker’s clock posts its own period, not last week’s', async () => {
    // Another instance, its clock a few ms ahead, made Monday 09:00's occurrence due; this worker took it at once.
    const { deps, posts, logs } = setup();
    const early = { ...deps, now: () => Date.parse('2026-11-23T08:59:59.990Z') };
    await saveSubscription(deps, SUBSCRIPTION);
    await markSent(deps, SUBSCRIPTION.channel, { cadence: 'weekly', from: '2026-11-09' }); // last Monday's
    await runScheduledDigest(early, { channel: SUBSCRIPTION.channel });
    expect(logs.text()).not.toContain('digest_already_posted');
    expect(String(posts()[0]?.args.text)).toContain('Weekly visitors digest · 16–22 Nov 2026');
  });

  it('the same subscription set up again while its occurrence waits for another try keeps that occurrence', async () => {
    const { deps, service, posts } = setup();
    await saveSubscription(deps, SUBSCRIPTION);
    service.failures.push({ code: 'unavailable', reason: '503', ambiguous: true, lost: 'error_status', status: 503 });
    await expect(runScheduledDigest(deps, { channel: SUBSCRIPTION.channel })).rejects.toThrow('did not go out');
    // No digest yet: Alice types the same command again, which changes nothing.
    const again = {
      command: { kind: 'subscribe', schedule: SUBSCRIPTION.schedule },
      project: PROJECT,
      audience: AUDIENCE,
    } as const;
    expect(await manageDigest(deps, again)).toMatchObject({ kind: 'subscribed' });
    await runScheduledDigest(deps, { channel: SUBSCRIPTION.channel });
    expect(String(posts()[0]?.args.text)).toContain('Weekly visitors digest · 9–15 Nov 2026');
  });

  it('two runs of one occurrence at once (one handed back on a stop, taken over) post it once', async () => {
    const { deps, posts } = setup();
    await saveSubscription(deps, SUBSCRIPTION);
    const runs = await Promise.allSettled(
      [1, 2].map(() => runScheduledDigest(deps, { channel: SUBSCRIPTION.channel })),
    );
    expect(posts()).toHaveLength(1);
    // The run that found the other under way is tried again by the engine, and finds the period posted.
    expect(runs.filter((r) => r.status === 'rejected')).toHaveLength(1);
    await runScheduledDigest(deps, { channel: SUBSCRIPTION.channel });
    expect(posts()).toHaveLength(1);
  });

  it('sends nothing before the first scheduled instant after subscribing', async () => {
    const { deps, posts } = setup();
    await saveSubscription(deps, { ...SUBSCRIPTION, createdAt: NOW });
    await runScheduledDigest(deps, { channel: SUBSCRIPTION.channel });
    expect(posts()).toEqual([]);
  });

  it('a run that dies after its post (drawing its chart) posts nothing more when tried again', async () => {
    const { deps, posts } = setup();
    await saveSubscription(deps, SUBSCRIPTION);
    const dies = async (subscription: Subscription, dueAt: number) => {
      const period = digestPeriod(subscription.schedule, dueAt);
      await deliverDigest(deps, VISITORS_DIGEST, { subscription, period, message: { text: 'digest' } });
      throw new Error('SIGKILL while the chart was drawn');
    };
    await expect(runScheduled(deps, VISITORS_DIGEST, { channel: SUBSCRIPTION.channel }, dies)).rejects.toThrow();
    await runScheduledDigest(deps, { channel: SUBSCRIPTION.channel });
    expect(posts()).toHaveLength(1);
  });

  it('a run that died between its post and its record finds the post in the channel instead of posting again', async () => {
    const { deps, slack, posts, logs } = setup();
    await saveSubscription(deps, SUBSCRIPTION);
    await markPosting(deps, SUBSCRIPTION.channel, { cadence: 'weekly', from: '2026-11-09' });
    slack.history.push({
      ts: '1700000000.000900',
      metadata: { event_type: 'mintlify_visitors_digest', event_payload: { cadence: 'weekly', from: '2026-11-09' } },
    });
    await runScheduledDigest(deps, { channel: SUBSCRIPTION.channel });
    expect(posts()).toEqual([]);
    expect(logs.text()).toContain('"event":"visitors.digest_found"');
    await runScheduledDigest(deps, { channel: SUBSCRIPTION.channel });
    expect(posts()).toEqual([]);
  });

  it('ends a digest of a project the app no longer serves, telling whoever set it up, and asks the service nothing', async () => {
    const { deps, posts, engine, service, slack } = setup();
    const gone = { ...SUBSCRIPTION, project: 'proj_dropped' };
    await saveSubscription(deps, gone);
    await scheduleDigest(deps, gone);
    await runScheduledDigest(deps, { channel: gone.channel });
    expect(posts()).toEqual([]);
    expect(service.queries).toEqual([]);
    expect(await listSubscriptions(deps)).toEqual([]);
    expect(await engine.schedules('digests')).toEqual([]);
    const note = slack.calls.find((c) => c.method === 'chat.postMessage' && c.args.channel !== gone.channel);
    expect(String(note?.args.text)).toContain('no longer serves project `proj_dropped`');
  });

  it('ends a subscription stored in a form it no longer reads, saying so in the channel when nobody can be told', async () => {
    const { deps, engine, slack, logs } = setup();
    await scheduleDigest(deps, SUBSCRIPTION);
    // An older release's record: no `createdBy` any more, and a schedule that no longer reads.
    const { createdBy: _, ...older } = SUBSCRIPTION;
    await deps.store.kv.set(keys.digestSubscription(SUBSCRIPTION.channel), { ...older, schedule: { at: '09:00' } });
    await runScheduledDigest(deps, { channel: SUBSCRIPTION.channel });
    expect(await engine.schedules('digests')).toEqual([]);
    expect(await deps.store.kv.get(keys.digestSubscription(SUBSCRIPTION.channel))).toBeUndefined();
    const notes = slack.calls.filter((c) => c.method === 'chat.postMessage');
    expect(notes.map((c) => c.args.channel)).toEqual([SUBSCRIPTION.channel]);
    expect(String(notes[0]?.args.text)).toContain('The visitors digest in <#C123DOCS> has ended');
    expect(logs.text()).toContain('"reason":"its stored subscription no longer reads"');
  });

  it('removes a scheduler whose subscription is gone', async () => {
    const { deps, posts, engine } = setup();
    await scheduleDigest(deps, SUBSCRIPTION);
    await runScheduledDigest(deps, { channel: SUBSCRIPTION.channel });
    expect(posts()).toEqual([]);
    expect(await engine.schedules('digests')).toEqual([]);
  });
});
