import { beforeEach, describe, expect, it } from 'vitest';
import type { SlackCall } from '../fakes/fake-slack-api.js';
import { expectToContainAll } from '../support/expect.js';
import { useHarness } from '../support/harness.js';
import { storeKinds } from '../support/redis.js';
import { eventually, TEST_PROJECT_ID } from '../support/test-app.js';

/** The stand-in's people: Bob set Pacific/Auckland in his Slack profile, Alice America/Los_Angeles. */
const BOB = 'U456BOB';
const ALICE = 'U123ALICE';
const VISITORS_PATH = `/v1/analytics/${TEST_PROJECT_ID}/visitors`;

describe.each(storeKinds)("/visitors in each person's time zone, across DST changes ($label)", (store) => {
  // The injected clock every app reads: set by each test.
  let time = 0;
  beforeEach(() => {
    time = 0;
  });
  const h = useHarness({ store, simulator: { pathCount: 50 }, start: { now: () => time, digestEveryMs: 20 } });

  const queries = () =>
    h.sim.requests.filter((r) => r.path === VISITORS_PATH).map(({ query }) => [query.dateFrom, query.dateTo]);
  const textOf = (call: SlackCall) => `${String(call.args.text)}\n${JSON.stringify(call.args.blocks ?? [])}`;
  const digestPosts = () =>
    h.slack.callsTo('chat.postMessage').filter((c: SlackCall) => String(c.args.text).includes('visitors digest'));

  async function visitors(text: string, user: string, channel?: string): Promise<string> {
    const { responseId } = await h.command(`/visitors ${text}`, { user, ...(channel && { channel }) });
    return textOf(await h.answer(responseId));
  }

  it.each([
    {
      when: 'in Auckland the morning after the clocks went forward: their 23-hour day',
      now: '2026-09-27T20:00:00Z', // Mon 28 Sep 09:00 NZDT; still 27 Sep in UTC
      user: BOB,
      lines: [
        'Unique visitors · proj_test · 27 Sep 2026',
        'dates in Pacific/Auckland',
        'fetched 28 Sep 2026 09:00 GMT+13',
      ],
      asked: [
        ['2026-09-27T00:00:00+12:00', '2026-09-28T00:00:00+13:00'],
        ['2026-09-26T00:00:00+12:00', '2026-09-27T00:00:00+12:00'], // the whole day before: yesterday has ended
      ],
    },
    {
      when: 'in Los Angeles the morning after the clocks went back: their 25-hour day',
      now: '2026-11-02T17:00:00Z', // Mon 2 Nov 09:00 PST
      user: ALICE,
      lines: [
        'Unique visitors · proj_test · 1 Nov 2026',
        'dates in America/Los_Angeles',
        'fetched 2 Nov 2026 09:00 PST',
      ],
      asked: [
        ['2026-11-01T00:00:00-07:00', '2026-11-02T00:00:00-08:00'],
        ['2026-10-31T00:00:00-07:00', '2026-11-01T00:00:00-07:00'],
      ],
    },
  ])('/visitors yesterday $when', async ({ now, user, lines, asked }) => {
    time = Date.parse(now);
    await h.boot();
    expectToContainAll(await visitors('yesterday', user), lines);
    expect(queries()).toEqual(asked);
  });

  it("a chart's points are the person's days", async () => {
    time = Date.parse('2026-09-27T20:00:00Z'); // Mon 28 Sep 09:00 NZDT
    await h.boot();
    expect(await visitors('2026-09-26 2026-09-27 chart', BOB)).toContain('"categories":["26 Sep 2026","27 Sep 2026"]');
    expect(queries().sort()).toEqual([
      ['2026-09-26T00:00:00+12:00', '2026-09-27T00:00:00+12:00'],
      ['2026-09-26T00:00:00+12:00', '2026-09-28T00:00:00+13:00'], // the top pages' table: the whole range
      ['2026-09-27T00:00:00+12:00', '2026-09-28T00:00:00+13:00'],
    ]);
  });

  it('/visitors today compares with the same hours of their yesterday', async () => {
    time = Date.parse('2026-11-02T17:30:00Z'); // 2 Nov 09:30 PST: nine and a half hours into today
    await h.boot();
    const reply = await visitors('today', ALICE);
    expect(queries()).toEqual([
      ['2026-11-02T00:00:00-08:00', '2026-11-03T00:00:00-08:00'],
      ['2026-11-01T00:00:00-07:00', '2026-11-01T08:30:00-08:00'], // 9.5 hours into 1 Nov, which had 25
    ]);
    expect(reply).toContain('up to 1 Nov 2026 08:30 PST');
  });

  it("a daily digest runs at 09:00 on the subscriber's clock in Auckland, after the clocks went forward", async () => {
    time = Date.parse('2026-09-27T19:59:30Z'); // 28 Sep 08:59:30 NZDT (08:59 UTC would be 2026-09-27T08:59Z)
    await h.boot();
    const answer = await visitors('digest daily', BOB);
    expect(answer).toContain('daily at 09:00 (Pacific/Auckland)');
    expect(answer).toContain('Next: 28 Sep 2026 09:00 GMT+13, covering 27 Sep 2026');
    time = Date.parse('2026-09-27T20:00:05Z');
    const post = await eventually(() => digestPosts()[0], 10_000, 'the digest');
    expect(textOf(post)).toContain('Daily visitors digest · 27 Sep 2026');
    expect(textOf(post)).toContain('dates in Pacific/Auckland');
    expect(queries()).toContainEqual(['2026-09-27T00:00:00+12:00', '2026-09-28T00:00:00+13:00']);
  });

  it('a subscriber who moved and changed their Slack zone sets the digest up on their new clock at once', async () => {
    time = Date.parse('2026-11-23T08:00:00Z');
    await h.boot();
    expect(await visitors('digest daily', BOB)).toContain('daily at 09:00 (Pacific/Auckland)');
    expect(await visitors('yesterday', BOB)).toContain('dates in Pacific/Auckland'); // his zone, read once a day
    h.slack.zones.set(BOB, 'Europe/London');
    // Setting the digest up again reads his zone afresh: the answer says which clock it keeps.
    const answer = await visitors('digest daily', BOB);
    expect(answer).toContain('daily at 09:00 (Europe/London)');
    expect(answer).toContain('Next: 23 Nov 2026 09:00 GMT, covering 22 Nov 2026');
  });

  it("a daily digest runs at 09:00 on the subscriber's clock in Los Angeles, after the clocks went back", async () => {
    time = Date.parse('2026-11-02T16:59:30Z'); // 2 Nov 08:59:30 PST
    await h.boot();
    const answer = await visitors('digest daily', ALICE, 'C234GENERAL');
    expect(answer).toContain('Next: 2 Nov 2026 09:00 PST, covering 1 Nov 2026');
    time = Date.parse('2026-11-02T17:00:05Z');
    const post = await eventually(() => digestPosts()[0], 10_000, 'the digest');
    expect(post.args.channel).toBe('C234GENERAL');
    expect(textOf(post)).toContain('Daily visitors digest · 1 Nov 2026');
    expect(queries()).toContainEqual(['2026-11-01T00:00:00-07:00', '2026-11-02T00:00:00-08:00']);
  });
});
