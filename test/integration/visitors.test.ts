import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import type { VisitorsResponse } from '../../src/mintlify/schemas.js';
import { ACTION_IDS } from '../../src/visitors/blocks.js';
import type { SlackCall } from '../fakes/fake-slack-api.js';
import { postInteraction } from '../fakes/signed-request.js';
import { blockAction, CHANNEL_ID, USER_ID } from '../fixtures/slack.js';
import { useHarness } from '../support/harness.js';
import { storeKinds } from '../support/redis.js';
import { settle } from '../support/steps.js';
import { eventually, TEST_API_KEY, TEST_PROJECT_ID } from '../support/test-app.js';
import { uploadedText } from '../support/uploads.js';

/** Slack wants an answer within 3 s; the app must answer long before the service does. */
const QUICK_MS = 1_000;
const VISITORS_PATH = `/v1/analytics/${TEST_PROJECT_ID}/visitors`;
/** A button's value: the report of 1–8 Nov 2026, first page of 10. */
const FIRST_WEEK_OF_NOVEMBER = JSON.stringify({ from: '2026-11-01', to: '2026-11-08', limit: 10, offset: 0 });

interface Block {
  type: string;
  text?: { text: string };
  fields?: { text: string }[];
  elements?: { action_id?: string; value?: string; text?: string | { text: string } }[];
}

interface DataTable {
  type: 'data_table';
  caption: string;
  rows: { type: string; text: string; value?: number }[][];
}

describe.each(storeKinds)('/visitors ($label)', (store) => {
  const h = useHarness({ store, simulator: { pathCount: 300 }, boot: true });
  // Alice keeps UTC here (these tests are about UTC days); zones: visitors-zones.test.ts.
  beforeEach(() => h.slack.zones.set(USER_ID, 'UTC'));

  /** Sends `/visitors <text>`; asserts Slack got an empty 200 quickly. */
  async function visitors(text: string, responseId = 'cmd'): Promise<void> {
    const { ack, ms } = await h.command(`/visitors ${text}`, { responseId });
    expect(ack).toBeUndefined();
    expect(ms).toBeLessThan(QUICK_MS);
  }

  /** Sends `/visitors <text>` as visitors() does and waits for its answer. */
  async function report(text: string, responseId = 'cmd'): Promise<SlackCall> {
    await visitors(text, responseId);
    return h.answer(responseId);
  }

  /** Clicks a button; asserts Slack got a 200 quickly. */
  async function click(actionId: string, value: string, responseId = 'act'): Promise<void> {
    const started = performance.now();
    const res = await postInteraction(
      h.app.url,
      blockAction(actionId, value, { response_url: h.slack.responseUrl(responseId) }),
    );
    expect(res.status).toBe(200);
    expect(performance.now() - started).toBeLessThan(QUICK_MS);
  }

  /** Clicks a button as click() does and waits for the answer the click brings. */
  async function clickAndRead(actionId: string, value: string): Promise<SlackCall> {
    const before = h.answers('act').length;
    await click(actionId, value);
    return h.answer('act', before);
  }

  const visitorQueries = () => h.sim.requests.filter((r) => r.path === VISITORS_PATH).map((r) => r.query);
  const blocksOf = (call: SlackCall) => (call.args.blocks ?? []) as Block[];
  const textOf = (call: SlackCall) => [String(call.args.text ?? ''), ...blocksOf(call).flatMap(blockTexts)].join('\n');
  const buttonValue = (call: SlackCall, actionId: string) =>
    blocksOf(call)
      .flatMap((b) => b.elements ?? [])
      .find((e) => e.action_id === actionId)?.value;

  const dataTable = (call: SlackCall) =>
    (blocksOf(call) as unknown as DataTable[]).find((b) => b.type === 'data_table') as DataTable | undefined;
  const textTable = (call: SlackCall) =>
    blocksOf(call)
      .flatMap((b) => (b.text?.text.startsWith('```') ? [b.text.text] : []))
      .join('\n');
  const share = ({ ai, total }: { ai: number; total: number }) => (total ? Math.round((ai / total) * 1000) / 10 : 0);

  /** Reads the simulator directly (after the app's requests have been checked). */
  async function servicePage(query: Record<string, string>): Promise<VisitorsResponse> {
    const url = `${h.sim.url}${VISITORS_PATH}?${new URLSearchParams(query)}`;
    const res = await fetch(url, { headers: { authorization: `Bearer ${TEST_API_KEY}` } });
    expect(res.status).toBe(200);
    return (await res.json()) as VisitorsResponse;
  }

  it('shows the first page privately, asking for an exclusive dateTo', async () => {
    const reply = await report('2026-11-01 2026-11-08');
    expect(reply.args.response_type).toBe('ephemeral');
    // The report, then the totals of the same days of October for the changes: exactly 2 requests.
    expect(visitorQueries()).toEqual([
      { dateFrom: '2026-11-01', dateTo: '2026-11-09', limit: '10', offset: '0' },
      { dateFrom: '2026-10-01', dateTo: '2026-10-09', limit: '1', offset: '0' },
    ]);

    const expected = await servicePage({ dateFrom: '2026-11-01', dateTo: '2026-11-09', limit: '10', offset: '0' });
    const text = textOf(reply);
    expect(blocksOf(reply)[0]?.text?.text).toBe('Unique visitors · proj_test · 1–8 Nov 2026');
    expect(text).toContain(`*Total visitors*\n${expected.totals.total.toLocaleString('en-US')}`);
    expect(text).toContain(`*Human*\n${expected.totals.human.toLocaleString('en-US')}`);
    expect(text).toContain('not Human + AI');
    expect(text).toContain('Rows 1–10 · dates in UTC');
    expect(text).toContain('Changes compare with the previous period, 1–8 Oct 2026;');
    // The rows as a data table Slack pages and sorts: numbers as numbers, with the text it shows.
    const table = dataTable(reply);
    expect(table?.caption).toBe('Unique visitors per page');
    expect(table?.rows[0]?.map((c) => c.text)).toEqual(['Page', 'Visitors', 'Human', 'AI', 'AI share']);
    expect(table?.rows.slice(1).map((r) => r.map((c) => c.value ?? c.text))).toEqual(
      expected.visitors.map((row) => [row.path, row.total, row.human, row.ai, share(row)]),
    );
    expect(table?.rows[1]?.[1]?.text).toBe(expected.visitors[0]?.total.toLocaleString('en-US'));
    expect(blocksOf(reply).some((b) => b.text?.text.startsWith('```'))).toBe(false);
    expect(String(reply.args.text)).toContain('Unique visitors · proj_test · 1–8 Nov 2026');
    expect(h.app.logs()).toContain('"event":"visitors.report"');
  });

  it('Next and Previous replace the message with the neighbouring page, keeping the range', async () => {
    const first = await report('2026-11-01..2026-11-08 top 10');

    const second = await clickAndRead(ACTION_IDS.next, buttonValue(first, ACTION_IDS.next) ?? '');
    expect(second.args.replace_original).toBe(true);
    expect(textOf(second)).toContain('Rows 11–20');
    expect(blocksOf(second)[0]?.text?.text).toBe('Unique visitors · proj_test · 1–8 Nov 2026');

    const third = await clickAndRead(ACTION_IDS.next, buttonValue(second, ACTION_IDS.next) ?? '');
    expect(third.args.replace_original).toBe(true);
    expect(textOf(third)).toContain('Rows 21–30');

    const back = await clickAndRead(ACTION_IDS.prev, buttonValue(third, ACTION_IDS.prev) ?? '');
    expect(back.args.replace_original).toBe(true);
    expect(textOf(back)).toContain('Rows 11–20');
    expect(blocksOf(back)).toEqual(blocksOf(second));

    // The way back was served from the cache: the service saw each page (and the previous totals) once.
    expect(visitorQueries().map((q) => [q.dateFrom, q.dateTo, q.limit, q.offset])).toEqual([
      ['2026-11-01', '2026-11-09', '10', '0'],
      ['2026-10-01', '2026-10-09', '1', '0'],
      ['2026-11-01', '2026-11-09', '10', '10'],
      ['2026-11-01', '2026-11-09', '10', '20'],
    ]);
  });

  it('Previous asks the service for offset − limit', async () => {
    const reply = await clickAndRead(
      ACTION_IDS.prev,
      JSON.stringify({ from: '2026-11-01', to: '2026-11-08', limit: 25, offset: 25 }),
    );
    expect(reply.args.replace_original).toBe(true);
    expect(textOf(reply)).toContain('Rows 26–50');
    expect(visitorQueries()[0]).toEqual({ dateFrom: '2026-11-01', dateTo: '2026-11-09', limit: '25', offset: '25' });
  });

  it('Share posts the same report in the channel, saying who shared it', async () => {
    const reply = await report('2026-11-01 2026-11-08');
    await click(ACTION_IDS.share, buttonValue(reply, ACTION_IDS.share) ?? '');
    const post = await eventually(() => h.slack.callsTo('chat.postMessage')[0], 5_000, 'shared post');
    expect(post.args.channel).toBe(CHANNEL_ID);
    const shared = textOf(post);
    expect(shared).toContain(`Shared by <@${USER_ID}>`);
    expect(shared).toContain('Rows 1–10');
    expect(blocksOf(post).some((b) => b.type === 'actions')).toBe(false);
    expect(dataTable(post)).toEqual(dataTable(reply));
    expect(dataTable(post)?.rows).toHaveLength(11);
    expect(shared).toMatch(/\*Total visitors\*\n[\d,]+ {2}[▲▼±n]/);
    expect(visitorQueries()).toHaveLength(2); // the report and the previous totals, both from the cache on Share
    expect(h.answers('act')).toHaveLength(0);
  });

  it('Share clicked twice in a row posts the report once', async () => {
    const reply = await report('2026-11-01 2026-11-08');
    const value = buttonValue(reply, ACTION_IDS.share) ?? '';
    await Promise.all([click(ACTION_IDS.share, value, 'share'), click(ACTION_IDS.share, value, 'share')]);
    await eventually(() => h.slack.callsTo('chat.postMessage')[0], 5_000, 'shared post');
    await settle(1_000);
    expect(h.slack.callsTo('chat.postMessage')).toHaveLength(1);
    expect(h.answers('share')).toHaveLength(0); // the post speaks for itself, for both clicks
    expect(h.app.logs()).toContain('"event":"visitors.share_repeated"');
  });

  it('shows the rows as the text table where Slack refuses the data table (invalid_blocks): the reply, Next and Share', async () => {
    h.slack.refuseBlocks(['data_table']);
    await visitors('2026-11-01 2026-11-08');
    const [refused, reply] = [await h.answer('cmd', 0), await h.answer('cmd', 1)];
    expect(dataTable(refused)).toBeDefined(); // tried first, refused by Slack
    expect(dataTable(reply)).toBeUndefined();
    expect(textTable(reply)).toMatch(/\n\s*1 {2}\/\S*\s+[\d,]+ {2}/);
    expect(textOf(reply)).toContain('bar: █ human ░ AI');
    expect(h.app.logs()).toContain('"event":"visitors.report_as_text","reason":"refused"');

    await click(ACTION_IDS.next, buttonValue(reply, ACTION_IDS.next) ?? '');
    const next = await h.answer('act', 1); // after the refused data table
    expect(dataTable(h.answers('act')[0] as SlackCall)).toBeDefined();
    expect(next.args.replace_original).toBe(true);
    expect(textTable(next)).not.toBe('');
    expect(textOf(next)).toContain('Rows 11–20');

    await click(ACTION_IDS.share, buttonValue(reply, ACTION_IDS.share) ?? '', 'share');
    const post = await eventually(
      () => h.slack.callsTo('chat.postMessage').find((c) => textTable(c) !== ''),
      5_000,
      'shared post as text',
    );
    expect(dataTable(h.slack.callsTo('chat.postMessage')[0] as SlackCall)).toBeDefined(); // refused first
    expect(post.args.channel).toBe(CHANNEL_ID);
    expect(textTable(post)).toBe(textTable(reply));
    expect(textOf(post)).toContain(`Shared by <@${USER_ID}>`);
    expect(h.answers('share')).toHaveLength(0); // the post speaks for itself
  });

  it('shows more than 100 rows (past the data table’s limit) as the text table, in one answer', async () => {
    const reply = await report('2026-10-01..2026-11-20 top 150');
    expect(h.answers('cmd')).toHaveLength(1);
    expect(dataTable(reply)).toBeUndefined();
    expect(textOf(reply)).toContain('Rows 1–150');
    expect(
      textTable(reply)
        .split('\n')
        .filter((l) => /^\s*\d+ {2}\//.test(l)),
    ).toHaveLength(150);
  });

  it('Share tells the person privately to invite the bot when it is not in the channel', async () => {
    h.slack.fail('chat.postMessage', { error: 'not_in_channel' });
    const reply = await clickAndRead(ACTION_IDS.share, FIRST_WEEK_OF_NOVEMBER);
    expect(reply.args.response_type).toBe('ephemeral');
    expect(reply.args.replace_original).toBe(false);
    expect(textOf(reply)).toContain('/invite');
  });

  /** Clicks a button of a report shown in `channel` and waits for the private answer the click brings. */
  async function clickIn(channel: string, actionId: string, value: string): Promise<SlackCall> {
    const before = h.answers('act').length;
    const where = {
      channel: { id: channel, name: channel },
      container: { type: 'message', message_ts: '1700000000.000100', channel_id: channel, is_ephemeral: true },
      response_url: h.slack.responseUrl('act'),
    };
    const res = await postInteraction(h.app.url, blockAction(actionId, value, where));
    expect(res.status).toBe(200);
    return h.answer('act', before);
  }

  it('Share in an archived channel says it is archived, not to invite the bot, and posts nothing', async () => {
    h.slack.workspace.channels.push({ id: 'C0ARCHIVED', name: 'old-docs', archived: true });
    for (const button of [ACTION_IDS.share, ACTION_IDS.csv]) {
      const said = textOf(await clickIn('C0ARCHIVED', button, FIRST_WEEK_OF_NOVEMBER));
      expect(said, button).toContain('archived');
      expect(said, button).not.toMatch(/invite|try again/i);
    }
    expect(h.slack.messages.filter((m) => m.channel === 'C0ARCHIVED')).toHaveLength(0);
  });

  it('Share in a direct message between people says where it can be shared instead', async () => {
    // Slack hides a DM the bot is not part of from it: `channel_not_found`.
    h.slack.workspace.channels.push({ id: 'D0ALICEBOB', name: 'alice-bob', botMember: false });
    const said = textOf(await clickIn('D0ALICEBOB', ACTION_IDS.share, FIRST_WEEK_OF_NOVEMBER));
    expect(said).toContain('direct message');
    expect(said).not.toContain('/invite');
  });

  it('Share where only some members may post (restricted_action) says so, not "try again"', async () => {
    h.slack.fail('chat.postMessage', { error: 'restricted_action' });
    const said = textOf(await clickAndRead(ACTION_IDS.share, FIRST_WEEK_OF_NOVEMBER));
    expect(said).toContain('only some members');
    expect(said).not.toMatch(/try again/i);
  });

  it('Share in a read-only channel (Slack: restricted_action_read_only_channel) says so, not "try again"', async () => {
    h.slack.workspace.channels.push({ id: 'C0ANNOUNCE', name: 'announcements', posting: 'read_only' });
    const said = textOf(await clickIn('C0ANNOUNCE', ACTION_IDS.share, FIRST_WEEK_OF_NOVEMBER));
    expect(said).toContain('does not let me post');
    expect(said).not.toMatch(/try again/i);
    expect(h.slack.messages.filter((m) => m.channel === 'C0ANNOUNCE')).toHaveLength(0);
  });

  it('Share where Slack\'s administrators suspended the bot\'s posting (ekm_access_denied) says so, not "try again"', async () => {
    h.slack.fail('chat.postMessage', { error: 'ekm_access_denied' }, 1, (args) => args.channel === CHANNEL_ID);
    const said = textOf(await clickIn(CHANNEL_ID, ACTION_IDS.share, FIRST_WEEK_OF_NOVEMBER));
    expect(said).toContain('administrators have suspended');
    expect(said).not.toMatch(/try again/i);
  });

  // Slack did nothing on a 429: the work goes back to its lane for Slack's Retry-After and is done then, once.
  const inChannel = () => h.slack.messages.filter((m) => m.channel === CHANNEL_ID && !m.thread_ts);

  it('Share to channel hit by a 429 is posted once after Retry-After, and the person hears it is coming', async () => {
    h.slack.fail('chat.postMessage', { status: 429, retryAfterSec: 1 }, 1);
    await click(ACTION_IDS.share, FIRST_WEEK_OF_NOVEMBER, 'share');
    const note = textOf(await h.answer('share'));
    expect(note).toContain('Slack is busy');
    expect(note).toContain('about 1 second');
    expect(note).not.toMatch(/slack_webapi|ratelimited|couldn’t post/);
    await eventually(() => inChannel().length === 1, 5_000, 'the report posted');
    const [limited, posted] = h.slack.callsTo('chat.postMessage');
    expect((posted?.at ?? 0) - (limited?.at ?? 0)).toBeGreaterThanOrEqual(900); // Retry-After: 1
    expect(textOf(posted as SlackCall)).toContain(`Shared by <@${USER_ID}>`);
    await settle(1_200);
    expect(inChannel()).toHaveLength(1);
    expect(h.answers('share')).toHaveLength(1);
  });

  it('Share to channel that Slack keeps rate-limiting says when to try again, never the SDK’s error code', async () => {
    h.slack.fail('chat.postMessage', { status: 429, retryAfterSec: 1 }, 100);
    await click(ACTION_IDS.share, FIRST_WEEK_OF_NOVEMBER, 'share');
    const gaveUp = textOf(await h.answer('share', 1, 10_000));
    expect(gaveUp).toContain('Slack is still busy');
    expect(gaveUp).toContain('try again in about 1 second');
    expect(gaveUp).not.toMatch(/slack_webapi|ratelimited|couldn’t post/);
    await settle(1_200);
    expect(h.answers('share')).toHaveLength(2);
    expect(h.slack.callsTo('chat.postMessage')).toHaveLength(4); // the first try and three after Retry-After
    expect(inChannel()).toHaveLength(0);
  });

  it('Download CSV whose final edit is rate-limited still ends saying it is done, once Retry-After has passed', async () => {
    const done = (args: { text?: unknown }) => String(args.text).includes('CSV in the thread');
    h.slack.fail('chat.update', { status: 429, retryAfterSec: 1 }, 1, done);
    await click(ACTION_IDS.csv, FIRST_WEEK_OF_NOVEMBER);
    await eventually(() => h.slack.callsTo('files.completeUploadExternal')[0], 10_000, 'upload');
    await eventually(() => done(inChannel()[0] ?? {}), 5_000, 'the progress message says done');
    const [limited, edited] = h.slack.callsTo('chat.update').filter((c) => done(c.args));
    expect((edited?.at ?? 0) - (limited?.at ?? 0)).toBeGreaterThanOrEqual(900);
    await settle(1_200);
    expect(h.slack.callsTo('chat.update').filter((c) => done(c.args))).toHaveLength(2);
    expect(h.slack.callsTo('files.completeUploadExternal')).toHaveLength(1);
    expect(inChannel()).toHaveLength(1);
    expect(h.answers('act')).toHaveLength(0); // the message speaks for itself
  });

  it('Download CSV that did not finish says so however many times Slack rate-limits that last edit', async () => {
    h.sim.injectFault({ kind: 'status', status: 503, count: Number.POSITIVE_INFINITY });
    const failed = (args: { text?: unknown }) => String(args.text).includes('did not finish');
    h.slack.fail('chat.update', { status: 429, retryAfterSec: 1 }, 4, failed);
    await click(ACTION_IDS.csv, FIRST_WEEK_OF_NOVEMBER);
    expect(textOf(await h.answer('act'))).toContain('try again'); // the service's failure, said privately
    await eventually(() => failed(inChannel()[0] ?? {}), 10_000, 'the progress message says it did not finish');
    expect(h.slack.callsTo('chat.update').filter((c) => failed(c.args))).toHaveLength(5);
  });

  it('Download CSV whose progress message is rate-limited starts once Retry-After has passed', async () => {
    h.slack.fail('chat.postMessage', { status: 429, retryAfterSec: 1 }, 1);
    await click(ACTION_IDS.csv, FIRST_WEEK_OF_NOVEMBER);
    const note = textOf(await h.answer('act'));
    expect(note).toContain('Slack is busy');
    expect(note).not.toMatch(/slack_webapi|ratelimited|couldn’t post/);
    await eventually(() => String(inChannel()[0]?.text).includes('CSV in the thread'), 10_000, 'the export done');
    await settle(1_200);
    expect(inChannel()).toHaveLength(1);
    expect(h.slack.callsTo('files.completeUploadExternal')).toHaveLength(1);
    expect(h.answers('act')).toHaveLength(1);
  });

  it('Download CSV uploads every row of a multi-page range, with totals, in the progress thread', async () => {
    const reply = await report('2026-10-01..2026-11-20');
    await click(ACTION_IDS.csv, buttonValue(reply, ACTION_IDS.csv) ?? '');

    const complete = await eventually(() => h.slack.callsTo('files.completeUploadExternal')[0], 10_000, 'upload');
    const progress = h.slack.callsTo('chat.postMessage')[0];
    expect(progress?.args.channel).toBe(CHANNEL_ID);
    expect(String(progress?.args.text)).toContain('rows so far');
    expect(complete.args).toMatchObject({ channel_id: CHANNEL_ID, thread_ts: expect.any(String) });
    expect(String(complete.args.initial_comment)).toContain('1 Oct – 20 Nov 2026');
    const upload = h.slack.callsTo('file_upload')[0];
    const exportQueries = visitorQueries().filter((q) => q.limit === '250');
    expect(exportQueries.map((q) => q.offset)).toEqual(['0', '250']);
    expect(exportQueries.every((q) => q.dateFrom === '2026-10-01' && q.dateTo === '2026-11-21')).toBe(true);

    const pages = [
      await servicePage({ dateFrom: '2026-10-01', dateTo: '2026-11-21', limit: '250', offset: '0' }),
      await servicePage({ dateFrom: '2026-10-01', dateTo: '2026-11-21', limit: '250', offset: '250' }),
    ];
    const rows = pages.flatMap((p) => p.visitors);
    expect(rows.length).toBeGreaterThan(250);
    const totals = pages[0]?.totals;
    const lines = (await uploadedText(String(upload?.args.content))).split('\r\n');
    expect(lines[0]).toBe('path,human,ai,total');
    expect(lines.slice(1, -2)).toEqual(rows.map((r) => `${r.path},${r.human},${r.ai},${r.total}`));
    expect(lines.at(-2)).toBe(`(site total),${totals?.human},${totals?.ai},${totals?.total}`);
    expect(lines.at(-1)).toBe('');

    const done = await eventually(
      () => h.slack.callsTo('chat.update').find((c) => String(c.args.text).includes('CSV in the thread')),
      5_000,
      'final progress update',
    );
    expect(done.args.ts).toBe(complete.args.thread_ts);
    expect(String(done.args.text)).toContain(`${rows.length} rows`);
  });

  it('four CSV exports running at once never delay /agent: its root message goes out while they all still run', async () => {
    // Every analytics request takes a while, so each export is in flight for seconds.
    h.sim.injectFault({ kind: 'slow', delayMs: 800, count: 100, match: { method: 'GET', path: /visitors/ } });
    for (let i = 0; i < 4; i++) {
      const day = `2026-11-0${i + 1}`;
      await click(ACTION_IDS.csv, JSON.stringify({ from: day, to: day, limit: 10, offset: 0 }), `csv${i}`);
    }
    await eventually(() => visitorQueries().length === 4, 5_000, 'four exports fetching');
    const { status } = await h.command('/agent Document the export queue');
    expect(status).toBe(200);
    await eventually(
      () =>
        h.slack.callsTo('chat.postMessage').some((c) => JSON.stringify(c.args.blocks ?? '').includes('export queue')),
      5_000,
      'the /agent root message',
    );
    expect(h.slack.callsTo('files.completeUploadExternal')).toHaveLength(0); // no export has finished yet
  });

  it('Download CSV explains how to invite the bot when the upload is refused', async () => {
    h.slack.fail('files.completeUploadExternal', { error: 'not_in_channel' });
    const reply = await clickAndRead(ACTION_IDS.csv, FIRST_WEEK_OF_NOVEMBER);
    expect(reply.args.response_type).toBe('ephemeral');
    expect(textOf(reply)).toContain('/invite');
  });

  it('Download CSV whose upload Slack rate-limits for longer than the client waits says when to try again, never the SDK code', async () => {
    h.slack.fail('files.completeUploadExternal', { status: 429, retryAfterSec: 30 });
    const reply = await clickAndRead(ACTION_IDS.csv, FIRST_WEEK_OF_NOVEMBER);
    expect(textOf(reply)).toContain('Slack is busy');
    expect(textOf(reply)).toContain('try again in about 30 seconds');
    expect(textOf(reply)).not.toMatch(/slack_webapi|ratelimited|couldn’t upload/);
  });

  it.each([
    ['files.getUploadURLExternal', 'file_uploads_disabled'],
    ['files.getUploadURLExternal', 'file_upload_size_restricted'],
    ['files.getUploadURLExternal', 'storage_limit_reached'],
    ['files.completeUploadExternal', 'file_type_not_allowed'],
  ])(
    'Download CSV that %s refuses with %s says a Slack admin must change it, not "try again"',
    async (method, error) => {
      h.slack.fail(method, { error });
      const said = textOf(await clickAndRead(ACTION_IDS.csv, FIRST_WEEK_OF_NOVEMBER));
      expect(said).toContain('Slack admin');
      expect(said).toContain(error);
      expect(said).not.toMatch(/try again/i);
      await eventually(() => String(inChannel()[0]?.text).includes('did not finish'), 5_000, 'the progress message');
    },
  );

  it('Download CSV whose upload URL fails says the upload failed and to try again', async () => {
    h.slack.fail('file_upload', { status: 500 });
    const said = textOf(await clickAndRead(ACTION_IDS.csv, FIRST_WEEK_OF_NOVEMBER));
    expect(said).toContain('couldn’t upload the CSV');
    expect(said).toMatch(/try again/i);
  });

  it('Download CSV in a channel the bot is not in explains how to invite it', async () => {
    h.slack.workspace.channels.push({ id: 'C0NOBOT', name: 'no-bot', botMember: false });
    expect(textOf(await clickIn('C0NOBOT', ACTION_IDS.csv, FIRST_WEEK_OF_NOVEMBER))).toContain('/invite');
  });

  it('serves an identical request within a minute from the cache', async () => {
    await report('30d', 'a');
    const second = await report('30d', 'b');
    expect(visitorQueries()).toHaveLength(2);
    expect(blocksOf(second)).toEqual(blocksOf(h.answers('a')[0] as SlackCall));
  });

  it('answers bad input with the syntax and sends nothing to the service', async () => {
    await visitors('2026-13-01', 'a');
    await visitors('banana', 'b');
    await visitors('help', 'c');
    const [a, b, c] = [await h.answer('a', 0), await h.answer('b', 0), await h.answer('c', 0)];
    for (const reply of [a, b, c]) {
      expect(reply.args.response_type).toBe('ephemeral');
      expect(textOf(reply)).toContain('How to use `/visitors`');
    }
    expect(textOf(a)).toContain('`2026-13-01` is not a date');
    expect(textOf(b)).toContain("I don't understand `banana`");
    // Slack shows nobody a command it sent: what was typed comes back, to mend and send again.
    expect(textOf(a)).toContain('You wrote: `/visitors 2026-13-01`');
    expect(textOf(c)).not.toContain('You wrote');
    await settle(300);
    expect(h.sim.requests).toHaveLength(0);
  });

  it('refuses forged button values privately and sends nothing to the service', async () => {
    const forged = [
      'not json',
      JSON.stringify({ from: '2026-11-01', to: '2026-11-08', limit: 251, offset: 0 }),
      JSON.stringify({ from: '2026-11-01', to: '2026-11-08', limit: 0, offset: 0 }),
      JSON.stringify({ from: '2026-11-01', to: '2026-11-08', limit: 10, offset: -10 }),
      JSON.stringify({ from: '2026-11-01', to: '2026-11-08', limit: 10, offset: 1e12 }),
      JSON.stringify({ from: '2026-02-30', to: '2026-03-08', limit: 10, offset: 0 }),
      JSON.stringify({ from: '2020-01-01', to: '2026-11-08', limit: 10, offset: 0 }),
      `{"from":"2026-11-01","to":"2026-11-08","limit":10,"offset":0,"pad":"${'x'.repeat(2000)}"}`,
    ];
    const actions = [ACTION_IDS.next, ACTION_IDS.prev, ACTION_IDS.share, ACTION_IDS.csv];
    for (const [i, value] of forged.entries())
      await click(actions[i % actions.length] ?? ACTION_IDS.next, value, `f${i}`);
    for (const i of forged.keys()) {
      const reply = await h.answer(`f${i}`, 0);
      expect(reply.args.replace_original).toBe(false);
      expect(textOf(reply)).toContain('button is not valid');
    }
    await settle(300);
    expect(h.sim.requests).toHaveLength(0);
    expect(h.slack.callsTo('chat.postMessage')).toHaveLength(0);
    expect(h.app.logs()).toContain('visitors.bad_button_value');
  });

  it('turns a 503 into a private "try again" with the exact command', async () => {
    h.sim.injectFault({ kind: 'status', status: 503, count: Number.POSITIVE_INFINITY });
    const reply = await report('2026-11-01 2026-11-08');
    const text = textOf(reply);
    expect(reply.args.response_type).toBe('ephemeral');
    expect(text).toContain('try again');
    expect(text).toContain('`/visitors 2026-11-01..2026-11-08`');
    expect(text).not.toMatch(/\bat .*\.(ts|js):\d+|Error:/);
  });

  it('asks people to wait when the service rate-limits', async () => {
    h.sim.injectFault({ kind: 'rate-limit', retryAfterSec: 30, count: 1 });
    const text = textOf(await report('2026-10-01 2026-10-31'));
    expect(text).toContain('about 30 seconds');
    expect(text).toContain('`/visitors 2026-10-01..2026-10-31`');
  });

  it('says the app is misconfigured on a 401 and logs it', async () => {
    h.sim.injectFault({ kind: 'status', status: 401, count: 1 });
    const reply = await report('7d');
    expect(textOf(reply)).toContain('misconfigured');
    expect(textOf(reply)).toContain('admin');
    expect(h.app.logs()).toMatch(/"level":"error","event":"visitors.report_failed".*"failure":"unauthorized"/);
  });

  it('answers Slack at once even when the service is slow', async () => {
    h.sim.injectFault({ kind: 'slow', delayMs: 800, count: 1 });
    const started = performance.now();
    await visitors('7d');
    expect(performance.now() - started).toBeLessThan(400);
    expect(h.answers('cmd')).toHaveLength(0);
    const reply = await h.answer('cmd', 0);
    expect(blocksOf(reply)[0]?.type).toBe('header');
  });

  it('shows a 400 from the service in plain words', async () => {
    // The simulator only answers 400 to queries the client refuses to send, so a stub plays the service here.
    const stub = createServer((_req, res) => {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ error: 'Invalid query parameters', details: [{ message: 'dateFrom: outside retention' }] }),
      );
    });
    stub.listen(0, '127.0.0.1');
    await once(stub, 'listening');
    onTestFinished(async () => {
      stub.closeAllConnections();
      await new Promise((resolve) => stub.close(resolve));
    });
    await h.restart({ mintlifyUrl: `http://127.0.0.1:${(stub.address() as AddressInfo).port}` });
    const reply = await report('2026-11-01');
    const text = textOf(reply);
    expect(reply.args.response_type).toBe('ephemeral');
    expect(text).toContain('could not answer that request: Invalid query parameters.');
    expect(text).toContain('• dateFrom: outside retention');
  });
});

function blockTexts(block: Block): string[] {
  return [
    ...(block.text ? [block.text.text] : []),
    ...(block.fields ?? []).map((f) => f.text),
    ...(block.elements ?? []).flatMap((e) => (typeof e.text === 'string' ? [e.text] : e.text ? [e.text.text] : [])),
  ];
}
