import { beforeEach, describe, expect, it } from 'vitest';
import { decodeEvidence } from '../../src/insights/evidence.js';
import { buttonClick, buttonsIn, CHANNEL_ID, USER_ID } from '../fixtures/slack.js';
import { useHarness } from '../support/harness.js';
import { storeKinds } from '../support/redis.js';
import { settle } from '../support/steps.js';
import { eventually, type TestApp } from '../support/test-app.js';

/**
 * Each scheduler's occurrences come this often instead of at their cron times, and each posts the digest of the
 * latest scheduled instant on the test's clock: the tests count occurrences, each posting at most once.
 */
const EVERY_MS = 400;

describe.each(storeKinds)('/insights digest ($label)', (store) => {
  // The injected clock every app reads: set by the test, so the scheduled minute comes at once.
  let time = 0;
  beforeEach(() => {
    time = Date.parse('2026-11-23T08:59:30Z'); // a Monday
  });
  const h = useHarness({ store, start: { now: () => time, digestEveryMs: EVERY_MS } });

  /** Runs `/insights digest …` as typed, by a person keeping UTC, and reads the private answer. */
  function digest(app: TestApp, words: string): Promise<string> {
    h.slack.zones.set(USER_ID, 'UTC');
    return h.privately(`/insights digest ${words}`.trim(), { app });
  }

  /** Insights digests posted in the channel. */
  const digestPosts = () => h.postsSaying(CHANNEL_ID, 'insights digest');
  const postedLogs = (app: TestApp) => app.logs().match(/"event":"insights\.digest_posted"/g)?.length ?? 0;

  it('digest weekly subscribes the channel, digest shows it, digest off ends it; a bad schedule is explained', async () => {
    const app = await h.boot();
    const none = await digest(app, '');
    expect(none).toContain('has no insights digest');
    expect(none).toContain('`/insights digest weekly` (Mondays 09:00)'); // how to subscribe
    expect(await digest(app, 'weekly fri 16:30')).toContain('weekly on Friday at 16:30 UTC');
    expect(await digest(app, '')).toMatch(
      /gets the insights digest of project `proj_test` weekly on Friday at 16:30 UTC, .*Next: 27 Nov 2026 16:30 UTC, covering 20–26 Nov 2026\. `\/insights digest off` ends it/,
    );
    expect(await digest(app, 'off')).toContain('The insights digest for this conversation is off.');
    expect(await digest(app, 'off')).toContain('This conversation had no insights digest.');

    const daily = await digest(app, 'daily');
    expect(daily).toContain('`digest` needs `weekly` or `off`.');
    expect(daily).toContain('You wrote: `/insights digest daily`');
    const odd = await digest(app, 'weekly fortnightly');
    expect(odd).toContain("I don't understand `fortnightly` in a digest schedule");
    expect(odd).toContain('You wrote: `/insights digest weekly fortnightly`');
    expect(await digest(app, '')).toContain('has no insights digest');
    // The visitors digest of the same channel is another subscription.
    expect(await h.privately('/visitors digest', { app })).toContain('has no visitors digest');
  });

  it('follows the /agent allow-lists for who may set or end it; anyone may look', async () => {
    const app = await h.boot({ env: { AGENT_ALLOWED_USERS: 'U999BOSS' } });
    for (const words of ['weekly', 'off']) {
      expect(await digest(app, words), words).toContain('Only the people and channels allowed');
    }
    expect(await digest(app, '')).toContain('has no insights digest');
  });

  it('fires once per period with the three fixes, each with its Draft a fix; off stops it', async () => {
    const app = await h.boot();
    await digest(app, 'weekly');
    await settle(EVERY_MS * 2);
    expect(digestPosts()).toHaveLength(0); // 08:59:30: not yet
    time = Date.parse('2026-11-23T09:00:05Z');
    const post = await eventually(() => digestPosts()[0], 10_000, 'the insights digest');
    const blocks = JSON.stringify(post.args.blocks);
    expect(blocks).toContain('Weekly insights digest · proj_test · 16–22 Nov 2026');
    for (const label of ['Page readers rate down most', 'Top search with no clicks', 'Most-asked unanswered question'])
      expect(blocks).toContain(label);
    const drafts = buttonsIn(post.args.blocks).filter(({ button }) => button.action_id === 'insights.draft');
    expect(drafts.map(({ button }) => decodeEvidence(button.value)?.kind)).toEqual(['page', 'search', 'questions']);
    expect(decodeEvidence(drafts[1]?.button.value)).toMatchObject({
      clicked: null,
      from: '2026-11-16',
      to: '2026-11-22',
    });
    expect(post.args.metadata).toMatchObject({
      event_type: 'mintlify_insights_digest',
      event_payload: { cadence: 'weekly', from: '2026-11-16', project: 'proj_test', created_by: USER_ID },
    });

    await eventually(() => postedLogs(app) > 0, 5_000, 'the log line');

    // A row's Draft a fix opens the form with that row's evidence, as on `/insights feedback`.
    const [first] = drafts;
    if (!first) throw new Error('no Draft a fix');
    await h.interact(buttonClick(first.button, { responseUrl: h.slack.responseUrl('dg-draft') }));
    const opened = await eventually(() => h.slack.callsTo('views.open')[0], 5_000, 'the Draft a fix form');
    expect(JSON.stringify(opened.args.view)).toContain('Improve the docs page');

    expect(await digest(app, 'off')).toContain('is off');
    await settle(EVERY_MS * 3);
    // Each occurrence (a week, at cron times) posted its digest once: as many posts as occurrences logged, counted
    // once none runs (while they run, a post may be in and its log line not yet).
    const posts = digestPosts().length;
    expect(posts).toBe(postedLogs(app));
    time = Date.parse('2026-11-30T09:00:05Z'); // the next week's minute: nothing comes
    await settle(EVERY_MS * 4);
    expect(digestPosts()).toHaveLength(posts);
  });

  it('reads the week’s conversations past the service’s first page: unanswered ones on a later page count', async () => {
    const app = await h.boot();
    await digest(app, 'weekly');
    // The service's first page holds only answered turns and says there are more (a cursor past every turn of the
    // week, so the next page is the simulator's own week).
    const after = '7ZZZZZZZZZZZZZZZZZZZZZZZZZ';
    const answered = Array.from({ length: 100 }, (_, i) => ({
      id: `01KAB${String(i).padStart(21, '0')}`,
      timestamp: '2026-11-22T12:00:00.000Z',
      query: `How do I do thing ${i}?`,
      response: 'Like so.',
      responseType: 'answer',
      sources: [],
      resolutionStatus: 'answered',
      queryCategory: null,
      pageUrl: null,
    }));
    h.sim.injectFault({
      kind: 'not-json',
      status: 200,
      contentType: 'application/json',
      body: JSON.stringify({ conversations: answered, nextCursor: after, hasMore: true }),
      count: 1,
      match: { operation: 'assistant' },
    });
    time = Date.parse('2026-11-23T09:00:05Z');
    const post = await eventually(() => digestPosts()[0], 10_000, 'the insights digest');
    const drafts = buttonsIn(post.args.blocks).filter(({ button }) => button.action_id === 'insights.draft');
    expect(drafts.map(({ button }) => decodeEvidence(button.value)?.kind)).toContain('questions');
    expect(JSON.stringify(post.args.blocks)).not.toContain('The assistant answered every question');
    const asked = h.sim.requests.filter((r) => r.path.endsWith('/assistant')).map((r) => r.query);
    expect(asked.slice(0, 2)).toEqual([
      { dateFrom: '2026-11-16', dateTo: '2026-11-23', limit: '1000' },
      { dateFrom: '2026-11-16', dateTo: '2026-11-23', limit: '1000', cursor: after },
    ]);
  });
});
