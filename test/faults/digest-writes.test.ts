import { beforeEach, describe, expect, it } from 'vitest';
import { CHANNEL_ID, USER_ID } from '../fixtures/slack.js';
import { useHarness } from '../support/harness.js';
import { redisAvailable, redisStore } from '../support/redis.js';
import { settle } from '../support/steps.js';
import { eventually, type TestApp } from '../support/test-app.js';
import { useRedisProxy } from './support.js';

/** Occurrences this often (at once on subscribing): few enough that none runs while a scheduler's write is dropped. */
const EVERY_MS = 3_000;

/**
 * A digest is two writes: its subscription (the store) and its scheduler (the queue engine). Redis dropping between
 * them (the scheduler's command lost, reproduced by the proxy) must leave what the person is told true: a digest not
 * set up is not half set up (a subscription that `/visitors digest` shows but that never posts), and one turned off is
 * off.
 */
describe.skipIf(!redisAvailable)('a digest whose scheduler write Redis drops', () => {
  let time = 0;
  const h = useHarness({ store: redisStore, start: { now: () => time, digestEveryMs: EVERY_MS } });
  const proxy = useRedisProxy(h);
  let app: TestApp;

  beforeEach(async () => {
    time = Date.parse('2026-11-23T08:59:30Z'); // a Monday
    app = await h.boot({ redisUrl: proxy().url });
    h.slack.zones.set(USER_ID, 'UTC');
  });

  const digestPosts = () => h.postsSaying(CHANNEL_ID, 'visitors digest');
  /** Every command carrying this channel's scheduler (its id) is lost while `during` runs. */
  async function schedulerDropped<T>(during: () => Promise<T>): Promise<T> {
    proxy().dropCommandsWith(`digest/${CHANNEL_ID}`);
    try {
      return await during();
    } finally {
      proxy().dropCommandsWith(undefined);
    }
  }

  it('subscribing is not half done: told it went wrong, no subscription stays without its scheduler', async () => {
    const answer = await schedulerDropped(() => h.privately('/visitors digest weekly', { app }));
    expect(answer).toContain('not made');
    expect(answer).toContain('still has no visitors digest');
    expect(answer).toContain('`/visitors digest weekly`');
    expect(await h.privately('/visitors digest', { app })).toContain('has no visitors digest');
    // Once Redis answers, the same command sets it up whole: it posts at its time. The queue's connection the proxy
    // reset may take a moment to come back (seen under CI load): until then a try is refused whole, so try again.
    const setUp = async () => (await h.privately('/visitors digest weekly', { app })).includes('weekly on Monday');
    await eventually(setUp, 10_000, 'the digest set up once Redis answers');
    expect(await h.privately('/visitors digest', { app })).toContain('weekly on Monday at 09:00 UTC');
    time = Date.parse('2026-11-23T09:00:05Z');
    await eventually(() => digestPosts()[0], 10_000, 'the digest');
  });

  it('a new time whose scheduler is not written: told the digest stays as it was, named, with what was typed', async () => {
    expect(await h.privately('/visitors digest weekly', { app })).toContain('weekly on Monday at 09:00 UTC');
    await settle(500); // its first occurrence (at once) ran: nothing was due yet
    const answer = await schedulerDropped(() => h.privately('/visitors digest daily 07:30', { app }));
    expect(answer).toContain('not made');
    expect(answer).toContain(
      'stays as it was: the visitors digest of project `proj_test` weekly on Monday at 09:00 UTC',
    );
    expect(answer).toContain('`/visitors digest daily 07:30`');
    expect(await h.privately('/visitors digest', { app })).toContain('weekly on Monday at 09:00 UTC');
  });

  it('turning it off is off, as told, though its scheduler was not removed: nothing more is posted', async () => {
    expect(await h.privately('/visitors digest weekly', { app })).toContain('weekly on Monday at 09:00 UTC');
    await settle(500); // its first occurrence (at once) ran: nothing was due yet
    expect(await schedulerDropped(() => h.privately('/visitors digest off', { app }))).toContain('is off');
    expect(await h.privately('/visitors digest', { app })).toContain('has no visitors digest');
    time = Date.parse('2026-11-23T09:00:05Z');
    await settle(EVERY_MS * 2); // the scheduler left behind comes, finds no subscription, and ends
    expect(digestPosts()).toEqual([]);
    expect(app.logs()).toContain('"event":"visitors.digest_unschedule_failed"');
  });
});
