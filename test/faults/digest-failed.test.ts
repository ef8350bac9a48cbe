import { beforeEach, describe, expect, it } from 'vitest';
import { CHANNEL_ID, USER_ID } from '../fixtures/slack.js';
import { useHarness } from '../support/harness.js';
import { storeKinds } from '../support/redis.js';
import { settle } from '../support/steps.js';
import { eventually } from '../support/test-app.js';

/** The digests lane's first backoff is 60 times this: its 5 tries fail within about a second, not a quarter hour. */
const RETRY_DELAY_MS = 1;
/** One occurrence comes at subscribing (nothing due yet), the next after this: longer than its 5 tries take. */
const EVERY_MS = 2_500;

/**
 * A scheduled digest that fails on every try (the analytics answering 503 throughout) fails for good: whoever set it
 * up hears it once, privately, with the period it would have covered and the command that shows it (issue 30:
 * nothing fails silently, the subscriber for digests). The subscription stays on.
 */
describe.each(storeKinds)('a scheduled digest that fails for good is told, once ($label)', (store) => {
  let time = 0;
  beforeEach(() => {
    time = Date.parse('2026-11-23T08:59:30Z'); // a Monday
  });
  const h = useHarness({ store, start: { now: () => time, digestEveryMs: EVERY_MS } });

  const notes = () =>
    h.slack
      .callsTo('chat.postMessage')
      .filter((c) => c.args.channel === USER_ID && String(c.args.text).includes('did not go out'));

  /** `command digest weekly` subscribed, then Monday 09:00 comes with the analytics failing every try: the note. */
  async function missedDigest(command: '/visitors' | '/insights') {
    const app = await h.boot({ retryDelayMs: RETRY_DELAY_MS });
    h.slack.zones.set(USER_ID, 'UTC');
    expect(await h.privately(`${command} digest weekly`, { app })).toContain('weekly on Monday at 09:00 UTC');
    h.sim.injectFault({ kind: 'status', status: 503, count: Number.POSITIVE_INFINITY });
    time = Date.parse('2026-11-23T09:00:05Z');
    const [note] = await eventually(() => notes().length && notes(), 15_000, 'the note to the subscriber');
    return { app, text: String(note?.args.text) };
  }

  it('the subscriber hears it once, with the period and the command that shows it; the digest stays on', async () => {
    const { app, text } = await missedDigest('/visitors');
    expect(text).toContain(`The weekly visitors digest in <#${CHANNEL_ID}> covering 16–22 Nov 2026 did not go out`);
    expect(text).toContain('`/visitors --project proj_test 2026-11-16..2026-11-22`');
    expect(text).toContain('It stays on');
    expect(app.logs()).toMatch(/"event":"task\.failed".*"kind":"visitors\.scheduled_digest".*"last_try":true/);
    expect(h.postsSaying(CHANNEL_ID, 'visitors digest')).toEqual([]);
    // Each failed try before the last was silent: one note for the occurrence.
    expect(notes()).toHaveLength(1);

    // It stays on: once the analytics answer again, the next occurrence posts the digest.
    h.sim.clearFaults();
    await eventually(() => h.postsSaying(CHANNEL_ID, 'visitors digest')[0], 15_000, 'the next digest');
    expect(await h.privately('/visitors digest off', { app })).toContain('is off');
    await settle(500);
    expect(notes()).toHaveLength(1);
  });

  // The insights digest shares the machinery; its own words and command, once (the wiring is what differs).
  if (store.kind === 'memory')
    it('an insights digest that fails for good: its subscriber hears it with /insights and the week', async () => {
      const { app, text } = await missedDigest('/insights');
      expect(text).toContain(`The weekly insights digest in <#${CHANNEL_ID}> covering 16–22 Nov 2026 did not go out`);
      expect(text).toContain('`/insights --project proj_test 2026-11-16..2026-11-22`');
      expect(await h.privately('/insights digest off', { app })).toContain('is off');
    });
});
