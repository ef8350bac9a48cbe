import { beforeEach, describe, expect, it } from 'vitest';
import { keys } from '../../src/store/keys.js';
import { saveSubscription } from '../../src/visitors/digest/store.js';
import { DATA_BLOCK_TYPES } from '../../tools/slack-standin/index.js';
import { CHANNEL_ID, USER_ID } from '../fixtures/slack.js';
import { useHarness } from '../support/harness.js';
import { storeKinds } from '../support/redis.js';
import { settle } from '../support/steps.js';
import { eventually, metricsUrlOf, type TestApp } from '../support/test-app.js';

/**
 * Each scheduler's occurrences come this often instead of at its cron times, and each posts the digest of the
 * latest scheduled instant on the test's clock: the tests count occurrences, each posting at most once.
 */
const EVERY_MS = 400;

describe.each(storeKinds)('/visitors digest ($label)', (store) => {
  // The injected clock every app reads: set by the test, so the scheduled minute comes at once.
  let time = 0;
  beforeEach(() => {
    time = Date.parse('2026-11-23T08:59:30Z'); // a Monday
  });
  const h = useHarness({
    store,
    simulator: { pathCount: 300 },
    start: { now: () => time, digestEveryMs: EVERY_MS },
  });

  /** Runs `/visitors digest …` on `app` and reads the private answer. */
  async function digest(app: TestApp, words: string, prefix?: string, channel?: string): Promise<string> {
    const text = prefix ? `${prefix} ${words}` : `digest ${words}`.trim();
    // Alice keeps UTC here (these tests are about UTC schedules); zones: visitors-zones.test.ts.
    h.slack.zones.set(USER_ID, 'UTC');
    return h.privately(`/visitors ${text}`, { app, ...(channel && { channel }) });
  }

  /** Digests posted in the channel (not the note to the subscriber in their DM). */
  const digestPosts = () => h.postsSaying(CHANNEL_ID, 'visitors digest');
  const chartUploads = () =>
    h.slack.callsTo('files.completeUploadExternal').filter((c) => String(c.args.initial_comment).includes('digest'));
  /** The digest's trend drawn by Slack: a chart message in the channel. */
  const chartPosts = () =>
    h.slack
      .callsTo('chat.postMessage')
      .filter((c) => c.args.channel === CHANNEL_ID && JSON.stringify(c.args.blocks).includes('"data_visualization"'));
  const count = (app: TestApp, event: string) => app.logs().split(`"event":"${event}"`).length - 1;
  const sum = (a: number, b: number) => a + b;
  const postedLogs = (...apps: TestApp[]) => apps.map((app) => count(app, 'visitors.digest_posted')).reduce(sum, 0);
  /** Ends the subscription, then waits for an occurrence already running: no digest comes after. */
  async function off(app: TestApp): Promise<number> {
    expect(await digest(app, 'off')).toContain('is off');
    await settle(EVERY_MS * 3);
    const posts = digestPosts().length;
    await settle(EVERY_MS * 3);
    expect(digestPosts()).toHaveLength(posts);
    return posts;
  }

  it('digest weekly subscribes the channel, digest shows it, digest off ends it', async () => {
    const app = await h.boot();
    expect(await digest(app, '')).toContain('has no visitors digest');
    expect(await digest(app, 'weekly')).toContain('weekly on Monday at 09:00 UTC');
    const shown = await digest(app, '');
    expect(shown).toContain('gets the visitors digest of project `proj_test` weekly on Monday at 09:00 UTC');
    expect(shown).toContain('Next: 23 Nov 2026 09:00 UTC, covering 16–22 Nov 2026');
    expect(await digest(app, 'daily 07:30')).toContain('daily at 07:30 UTC');
    expect(await digest(app, 'off')).toContain('is off');
    expect(await digest(app, '')).toContain('has no visitors digest');
    expect(await digest(app, 'hourly')).toContain('needs `daily`, `weekly`, `monthly` or `off`');
    expect(await digest(app, 'digest weekly', '--project proj_nope')).toContain('proj_nope');
    expect(await digest(app, '')).toContain('has no visitors digest');
  });

  it('follows the /agent allow-lists for who may subscribe', async () => {
    const app = await h.boot({ env: { AGENT_ALLOWED_USERS: 'U999BOSS' } });
    expect(await digest(app, 'weekly')).toContain('Only the people and channels allowed');
    expect(await digest(app, '')).toContain('has no visitors digest');
  });

  it('posts at the scheduled minute with totals, top pages, movers and a chart drawn by Slack', async () => {
    const app = await h.boot();
    await digest(app, 'weekly');
    await settle(200);
    expect(digestPosts()).toHaveLength(0); // 08:59:30: not yet
    time = Date.parse('2026-11-23T09:00:05Z');
    const post = await eventually(() => digestPosts()[0], 10_000, 'the digest');
    expect(post.args.channel).toBe(CHANNEL_ID);
    const text = JSON.stringify(post.args.blocks);
    expect(text).toContain('Weekly visitors digest · 16–22 Nov 2026');
    expect(text).toMatch(/\*Total visitors\*\\n[\d,]+ {2}[▲▼±]/);
    expect(text).toContain('*Top pages*');
    expect(text).toContain('*Biggest movers*');
    // 300 pages fit in 4 pages of 250: both periods were read to the end, so no cap note.
    expect(text).not.toContain('stops at');
    const chart = await eventually(() => chartPosts()[0], 10_000, 'the digest chart');
    expect(JSON.stringify(chart.args.blocks)).toContain('"categories":["16 Nov 2026"');
    expect(chartUploads()).toEqual([]);
    // Logged once the upload is answered, a moment after Slack saw it.
    await eventually(() => app.logs().includes('"event":"visitors.digest_posted"'), 5_000, 'the digest log line');
  });

  it('a new time set after the digest went out does not post the same period again', async () => {
    const app = await h.boot();
    await digest(app, 'weekly');
    time = Date.parse('2026-11-23T09:00:05Z');
    await eventually(() => digestPosts()[0], 10_000, 'the digest');
    expect(await digest(app, 'weekly mon 16:00')).toContain('weekly on Monday at 16:00 UTC');
    time = Date.parse('2026-11-23T16:00:05Z'); // due again, for the week just posted (16–22 Nov)
    await eventually(
      () => app.logs().includes('"event":"visitors.digest_already_posted"'),
      10_000,
      'the occurrence that finds its period posted',
    );
    expect(digestPosts()).toHaveLength(1);
    time = Date.parse('2026-11-30T16:00:05Z'); // the next week's comes as set
    const next = await eventually(() => digestPosts()[1], 10_000, 'the next week’s digest');
    expect(JSON.stringify(next.args.blocks)).toContain('23–29 Nov 2026');
  });

  it('uploads the chart as a PNG where Slack refuses the chart block (invalid_blocks)', async () => {
    const app = await h.boot();
    await digest(app, 'weekly');
    h.slack.refuseBlocks(DATA_BLOCK_TYPES);
    time = Date.parse('2026-11-23T09:00:05Z');
    const upload = await eventually(() => chartUploads()[0], 10_000, 'the digest chart as a PNG');
    expect(upload.args.channel_id).toBe(CHANNEL_ID);
    expect(String(upload.args.initial_comment)).toContain('Trend for the weekly visitors digest');
    expect(app.logs()).toContain('"event":"visitors.chart_post_failed","code":"invalid_blocks"');
    expect(chartPosts().length).toBeGreaterThan(0); // tried first, refused
  });

  it('a chart Slack rate-limits after the digest went out is posted once, after Retry-After', async () => {
    const app = await h.boot();
    await digest(app, 'weekly');
    const isChart = (args: { blocks?: unknown }) => JSON.stringify(args.blocks ?? '').includes('"data_visualization"');
    h.slack.fail('chat.postMessage', { status: 429, retryAfterSec: 1 }, 1, isChart);
    time = Date.parse('2026-11-23T09:00:05Z');
    await eventually(() => digestPosts()[0], 10_000, 'the digest');
    const stored = () => h.slack.messages.filter((m) => m.channel === CHANNEL_ID && isChart(m));
    await eventually(() => stored()[0], 10_000, 'the chart after Retry-After');
    const [limited, posted] = chartPosts();
    expect((posted?.at ?? 0) - (limited?.at ?? 0)).toBeGreaterThanOrEqual(900);
    await settle(1_200);
    expect(stored()).toHaveLength(1);
    expect(digestPosts()).toHaveLength(1);
  });

  it('a 5xx after Slack stored the digest is not followed by a second digest of that occurrence', async () => {
    const app = await h.boot();
    await digest(app, 'weekly');
    h.slack.fail('chat.postMessage', { status: 500, afterStoring: true });
    time = Date.parse('2026-11-23T09:00:05Z');
    await eventually(() => chartPosts()[0], 10_000, 'the digest chart');
    expect(app.logs()).toContain('"event":"visitors.digest_found"');
    await off(app);
    const stored = h.slack.messages.filter((m) => String(m.text).startsWith('Weekly visitors digest'));
    expect(stored.length).toBe(postedLogs(app)); // one message per occurrence, the 5xx one included
  });

  it('subscribing in a channel the bot is not in is refused at once, with the /invite that fixes it', async () => {
    const app = await h.boot();
    h.slack.workspace.channels.push({ id: 'C567NOBOT', name: 'no-bot', botMember: false });
    const answer = await digest(app, 'weekly', undefined, 'C567NOBOT');
    expect(answer).toContain('I can’t post in this channel (`not_in_channel`), so no digest was set up');
    expect(answer).toContain('`/visitors digest weekly`');
    expect(answer).toContain('/invite @Mintlify');
    expect(await digest(app, '', undefined, 'C567NOBOT')).toContain('has no visitors digest');
    expect(await digest(app, 'weekly')).toContain('weekly on Monday at 09:00 UTC'); // where the bot is, it is set up
  });

  it('subscribing in a private channel the bot is not in is refused too (groups:read answers for it)', async () => {
    const app = await h.boot();
    h.slack.workspace.channels.push({ id: 'G567NOBOT', name: 'secret', botMember: false });
    const answer = await digest(app, 'weekly', undefined, 'G567NOBOT');
    expect(answer).toContain('I can’t post in this channel (`not_in_channel`), so no digest was set up');
  });

  it('subscribing in a DM with the bot asks Slack nothing the app lacks the scope for (im:read)', async () => {
    const app = await h.boot();
    const dm = `D${USER_ID}`;
    expect(await digest(app, 'weekly', undefined, dm)).toContain('weekly on Monday at 09:00 UTC');
    for (const instance of app.instances) {
      const metrics = await (await fetch(`${metricsUrlOf(instance)}/metrics`)).text();
      expect(metrics).not.toContain('code="missing_scope"');
    }
  });

  /** A group DM with Alice and two others, as Slack names it in a slash command (`channel_name`); the bot in it or not. */
  function groupDm(botMember: boolean) {
    const group = { id: 'C567GROUPDM', name: 'mpdm-alice--bob--carol-1', groupDm: true, botMember };
    h.slack.workspace.channels.push(group);
    h.slack.zones.set(USER_ID, 'UTC');
    return { channel: group.id, fields: { channel_name: group.name } };
  }

  it('subscribing in a group DM asks Slack nothing the app lacks the scope for (mpim:read), and posts there', async () => {
    const app = await h.boot();
    const where = groupDm(true);
    expect(await h.privately('/visitors digest weekly', { app, ...where })).toContain('weekly on Monday at 09:00 UTC');
    for (const instance of app.instances) {
      const metrics = await (await fetch(`${metricsUrlOf(instance)}/metrics`)).text();
      expect(metrics).not.toContain('code="missing_scope"');
    }
    time = Date.parse('2026-11-23T09:00:05Z');
    await eventually(() => h.postsSaying(where.channel, 'visitors digest')[0], 10_000, 'the digest in the group DM');
  });

  it('subscribing in a group DM the bot is not in is refused at once, saying how to get one', async () => {
    const app = await h.boot();
    const where = groupDm(false);
    const answer = await h.privately('/visitors digest weekly', { app, ...where });
    expect(answer).toContain('I’m not in this group DM, so no digest was set up');
    expect(answer).toContain('`/visitors digest weekly`');
    expect(answer).not.toContain('/invite');
    expect(await h.privately('/visitors digest', { app, ...where })).toContain('has no visitors digest');
  });

  it('subscribing in a DM between two people is refused at once, echoing the command and saying where to get one', async () => {
    const app = await h.boot();
    // Alice runs the command in her DM with Bob: Slack sends it (channel_name `directmessage`), but the bot is not in it.
    h.slack.workspace.channels.push({ id: 'D567ALICEBOB', name: 'directmessage', directMessage: true });
    const where = { channel: 'D567ALICEBOB', fields: { channel_name: 'directmessage' } };
    h.slack.zones.set(USER_ID, 'UTC');
    const answer = await h.privately('/visitors digest weekly fri 16:30', { app, ...where });
    expect(answer).toContain('I can’t post in a DM between two people, so no digest was set up');
    expect(answer).toContain('`/visitors digest weekly fri 16:30`');
    expect(answer).toContain('in a channel I’m in, or in your DM with me');
    expect(await h.privately('/visitors digest', { app, ...where })).toContain('has no visitors digest');
    time = Date.parse('2026-11-23T09:00:05Z');
    await settle(EVERY_MS * 3);
    expect(h.slack.callsTo('chat.postMessage')).toEqual([]);
  });

  it.each(['restricted_action', 'msg_too_long', 'not_in_channel', 'channel_not_found'])(
    'a digest Slack refuses for good (%s) ends its subscription and tells its subscriber privately, once',
    async (code) => {
      const app = await h.boot();
      await digest(app, 'weekly');
      h.slack.fail('chat.postMessage', { error: code }, 1, (args) => args.channel === CHANNEL_ID);
      time = Date.parse('2026-11-23T09:00:05Z');
      const dm = await eventually(
        () => h.slack.callsTo('chat.postMessage').find((c) => c.args.channel === USER_ID),
        10_000,
        'the note to the subscriber',
      );
      expect(String(dm.args.text)).toContain(`weekly visitors digest in <#${CHANNEL_ID}> has ended`);
      expect(String(dm.args.text)).toContain(`\`${code}\``);
      if (code === 'not_in_channel') expect(String(dm.args.text)).toContain('/invite @Mintlify');
      expect(await digest(app, '')).toContain('has no visitors digest');
      await settle(300); // many ticks
      expect(digestPosts()).toHaveLength(1); // the refused attempt, never tried again
    },
  );

  it('a digest Slack refuses for good whose subscriber’s DM is refused too says in the log that nobody was told', async () => {
    const app = await h.boot();
    await digest(app, 'weekly');
    h.slack.fail('chat.postMessage', { error: 'channel_not_found' }, 1, (args) => args.channel === CHANNEL_ID);
    h.slack.fail('chat.postMessage', { error: 'channel_not_found' }, 1, (args) => args.channel === USER_ID);
    time = Date.parse('2026-11-23T09:00:05Z');
    await eventually(
      () => /"event":"visitors.digest_ended_note_failed".*"user":"/.test(app.logs()),
      10_000,
      'the log line that the subscriber was not told',
    );
  });

  it('a stored subscription that no longer reads (its zone unknown now) ends with a log line, and its subscriber hears it once', async () => {
    const app = await h.boot();
    await digest(app, 'weekly');
    // As an older release (or an older tz database) left it: a zone this one does not know.
    const stored = { channel: CHANNEL_ID, project: 'proj_test', createdBy: USER_ID, createdAt: time };
    const schedule = { cadence: 'weekly', hour: 9, minute: 0, weekday: 1, tz: 'America/Atlantis' };
    await app.app.deps.store.kv.set(keys.digestSubscription(CHANNEL_ID), { ...stored, schedule });
    time = Date.parse('2026-11-23T09:00:05Z');
    const notes = () => h.slack.callsTo('chat.postMessage').filter((c) => c.args.channel === USER_ID);
    const note = await eventually(() => notes()[0], 10_000, 'the note to the subscriber');
    expect(String(note.args.text)).toContain(`weekly visitors digest in <#${CHANNEL_ID}> has ended`);
    expect(String(note.args.text)).toContain('`/visitors digest weekly`');
    expect(app.logs()).toMatch(/"event":"visitors.digest_ended".*"reason":"its stored subscription no longer reads"/);
    expect(await digest(app, '')).toContain('has no visitors digest');
    await settle(EVERY_MS * 3);
    expect(notes()).toHaveLength(1);
    expect(digestPosts()).toEqual([]);
  });

  it('an ended digest whose subscriber cannot be reached by DM any more (deactivated) is said in the channel', async () => {
    const app = await h.boot();
    await digest(app, 'weekly');
    h.slack.fail('chat.postMessage', { error: 'channel_not_found' }, 1_000, (args) => args.channel === USER_ID);
    const stored = { channel: CHANNEL_ID, project: 'proj_test', createdBy: USER_ID, createdAt: time };
    const schedule = { cadence: 'weekly', hour: 9, minute: 0, weekday: 1, tz: 'America/Atlantis' };
    await app.app.deps.store.kv.set(keys.digestSubscription(CHANNEL_ID), { ...stored, schedule });
    time = Date.parse('2026-11-23T09:00:05Z');
    const said = () => h.postsSaying(CHANNEL_ID, 'has ended');
    const note = await eventually(() => said()[0], 10_000, 'the note in the channel');
    expect(JSON.stringify(note)).toContain('`/visitors digest weekly`');
    await settle(EVERY_MS * 3);
    expect(said()).toHaveLength(1);
    expect(digestPosts()).toEqual(said()); // the note only, no digest
  });

  // Read at start, where no scheduler fires for it: only a shared store outlives a restart.
  if (store.kind === 'redis')
    it('a stored subscription that no longer reads and lost its scheduler is told once at start, by one instance', async () => {
      const first = await h.boot();
      await digest(first, 'weekly');
      await first.app.deps.lanes.tasks.digests.unschedule(`digest/${CHANNEL_ID}`); // the scheduler lost
      await settle(EVERY_MS * 2); // an occurrence under way has ended
      const stored = { channel: CHANNEL_ID, project: 'proj_test', createdBy: USER_ID, createdAt: time };
      const schedule = { cadence: 'weekly', hour: 9, minute: 0, weekday: 1, tz: 'America/Atlantis' };
      await first.app.deps.store.kv.set(keys.digestSubscription(CHANNEL_ID), { ...stored, schedule });
      await h.stopApps();

      const notes = () => h.slack.callsTo('chat.postMessage').filter((c) => c.args.channel === USER_ID);
      const [a, b] = [await h.boot(), await h.boot()]; // two instances read it at start
      const note = await eventually(() => notes()[0], 10_000, 'the note to the subscriber');
      expect(String(note.args.text)).toContain(`weekly visitors digest in <#${CHANNEL_ID}> has ended`);
      expect(String(note.args.text)).toContain('`/visitors digest weekly`');
      const ended = /"event":"visitors.digest_ended".*"reason":"its stored subscription no longer reads"/g;
      expect(`${a.logs()}\n${b.logs()}`.match(ended)).toHaveLength(1);
      await settle(EVERY_MS * 3);
      const c = await h.restart();
      await settle(EVERY_MS * 3);
      expect(notes()).toHaveLength(1);
      expect(await digest(c, '')).toContain('has no visitors digest');
    });

  it('a channel that was archived ends its subscription with a log line, and its subscriber hears it once', async () => {
    const app = await h.boot();
    h.slack.workspace.channels.push({ id: 'C567ARCHIVE', name: 'launch', archived: false });
    await digest(app, 'weekly', undefined, 'C567ARCHIVE');
    const channel = h.slack.tenant().channel('C567ARCHIVE');
    if (channel) channel.archived = true;
    time = Date.parse('2026-11-23T09:00:05Z');
    await eventually(() => app.logs().includes('"event":"visitors.digest_ended"'), 10_000, 'the end of the digest');
    expect(await digest(app, '', undefined, 'C567ARCHIVE')).toContain('has no visitors digest');
    await settle();
    const notes = h.slack.callsTo('chat.postMessage').filter((c) => c.args.channel === USER_ID);
    expect(notes).toHaveLength(1);
    expect(String(notes[0]?.args.text)).toContain('weekly visitors digest in <#C567ARCHIVE> has ended');
    expect(String(notes[0]?.args.text)).toContain('`is_archived`');
    expect(h.postsSaying('C567ARCHIVE', 'visitors digest')).toHaveLength(1); // the refused attempt, never tried again
  });

  // Shared by two instances, or outliving a restart: only a shared store can (memory would not even be asked).
  if (store.kind === 'redis')
    it("two instances on one Redis post each occurrence once: the engine's scheduler, which outlives them", async () => {
      const a = await h.boot();
      const b = await h.boot();
      await digest(a, 'weekly');
      time = Date.parse('2026-11-23T09:00:05Z');
      const started = Date.now();
      await eventually(() => digestPosts()[0], 10_000, 'the digest');
      await settle(EVERY_MS * 5);
      await h.stopApps();
      const posts = digestPosts().length;
      // Each occurrence once: as many runs as occurrences there were time for, not twice as many; the period once.
      const runs = postedLogs(a, b) + [a, b].map((app) => count(app, 'visitors.digest_already_posted')).reduce(sum);
      expect(runs).toBeGreaterThan(1);
      expect(runs).toBeLessThanOrEqual(Math.ceil((Date.now() - started) / EVERY_MS) + 1);
      expect(posts).toBe(1);

      // The scheduler lives in Redis: an instance started later runs its next occurrence without a new subscribe.
      time = Date.parse('2026-11-30T09:00:05Z');
      const c = await h.boot();
      await eventually(() => digestPosts().length > posts, 10_000, 'the next occurrence');
      expect(c.logs()).toContain('"event":"visitors.digests_adopted","digests":0');
      await off(c);
    });

  // Outliving every instance: only a shared store can.
  if (store.kind === 'redis')
    it('a digest missed while every instance was down is sent when one comes back within the period', async () => {
      time = Date.parse('2026-11-29T12:00:00Z'); // Sunday
      const first = await h.boot();
      await digest(first, 'weekly');
      await h.stopApps();

      time = Date.parse('2026-11-30T15:00:00Z'); // Monday afternoon: 09:00 passed while nobody ran
      const a = await h.boot();
      const b = await h.boot();
      const post = await eventually(() => digestPosts()[0], 10_000, 'the missed digest');
      expect(JSON.stringify(post.args.blocks)).toContain('23–29 Nov 2026');
      expect(await off(a)).toBe(postedLogs(a, b));
    });

  // What the previous release stored outlives it only in a shared store.
  if (store.kind === 'redis')
    it('a subscription stored by the previous release (no scheduler) gets its scheduler at start', async () => {
      const old = await h.boot();
      const subscription = { channel: CHANNEL_ID, project: 'proj_test', createdBy: USER_ID, createdAt: time };
      await saveSubscription(old.app.deps, { ...subscription, schedule: { cadence: 'weekly', hour: 9, minute: 0 } });
      await h.stopApps();
      time = Date.parse('2026-11-23T09:00:05Z');
      const a = await h.boot();
      const b = await h.boot(); // the second start finds it scheduled: still one scheduler
      await eventually(() => digestPosts()[0], 10_000, 'the digest');
      expect(`${a.logs()}${b.logs()}`).toContain('"event":"visitors.digests_adopted","digests":1');
      expect(await off(a)).toBe(postedLogs(a, b));
    });
});
