import { beforeEach, describe, expect, it } from 'vitest';
import { ACTION_IDS } from '../../src/visitors/blocks.js';
import { DATA_BLOCK_TYPES } from '../../tools/slack-standin/index.js';
import type { SlackCall } from '../fakes/fake-slack-api.js';
import { postInteraction } from '../fakes/signed-request.js';
import { blockAction, CHANNEL_ID, USER_ID } from '../fixtures/slack.js';
import { useHarness } from '../support/harness.js';
import { storeKinds } from '../support/redis.js';
import { settle } from '../support/steps.js';
import { eventually, TEST_PROJECT_ID } from '../support/test-app.js';

const VISITORS_PATH = `/v1/analytics/${TEST_PROJECT_ID}/visitors`;
const DAY_MS = 86_400_000;
const day = (offset: number) => new Date(Date.now() + offset * DAY_MS).toISOString().slice(0, 10);

describe.each(storeKinds)('/visitors changes and charts ($label)', (store) => {
  const h = useHarness({ store, simulator: { pathCount: 300 }, boot: true });
  // Alice keeps UTC here (these tests are about UTC days); zones: visitors-zones.test.ts.
  beforeEach(() => h.slack.zones.set(USER_ID, 'UTC'));

  const queries = () => h.sim.requests.filter((r) => r.path === VISITORS_PATH).map((r) => r.query);
  const reply = (id: string) => h.answer(id, 0, 10_000);
  const text = (call: SlackCall) => `${String(call.args.text)}\n${JSON.stringify(call.args.blocks ?? [])}`;
  const button = (call: SlackCall, actionId: string) =>
    ((call.args.blocks ?? []) as { elements?: { action_id?: string; value?: string }[] }[])
      .flatMap((b) => b.elements ?? [])
      .find((e) => e.action_id === actionId)?.value ?? '';
  const command = (text: string, id: string) => h.command(`/visitors ${text}`, { responseId: id });
  const click = (actionId: string, value: string, id: string) =>
    postInteraction(h.app.url, blockAction(actionId, value, { response_url: h.slack.responseUrl(id) }));

  it('a cold /visitors makes exactly 2 requests and shows each change against the same hours of the previous 7 days', async () => {
    const asked = Date.now();
    expect((await command('', 'cmd')).status).toBe(200);
    const report = await reply('cmd');
    const [current, previous] = queries();
    expect(queries()).toHaveLength(2);
    expect(current).toEqual({ dateFrom: day(-6), dateTo: day(1), limit: '10', offset: '0' });
    // Today is still running: the previous 7 days end as far into them as now is into these, to the minute.
    expect(previous).toMatchObject({ dateFrom: `${day(-13)}T00:00:00+00:00`, limit: '1', offset: '0' });
    const cut = Date.parse(previous?.dateTo ?? '') + 7 * DAY_MS;
    expect(cut).toBeGreaterThan(asked - 60_000);
    expect(cut).toBeLessThanOrEqual(Date.now());
    expect(text(report)).toContain('as far into it as this one has run');
    expect(text(report)).toMatch(/\*Total visitors\*\\n[\d,]+ {2}(▲|▼|±) [\d.]+ %/);
    expect(text(report)).toMatch(/\*AI share\*\\n[\d.]+% {2}(▲|▼|±) [\d.]+ pts/);
    expect(text(report)).toContain('Changes compare with the previous period, ');
  });

  const blockOf = (call: SlackCall, type: string) =>
    ((call.args.blocks ?? []) as Record<string, unknown>[]).find((b) => b.type === type) as
      | (Record<string, unknown> & { chart?: { series: { name: string; data: unknown[] }[] }; rows?: unknown[][] })
      | undefined;

  it('/visitors 14d chart draws the trend and the top pages in the reply itself, no file to the DM; none asked again when warm', async () => {
    expect((await command('14d chart', 'c1')).status).toBe(200);
    const drawn = await reply('c1');
    expect(drawn.args.response_type).toBe('ephemeral');
    const chart = blockOf(drawn, 'data_visualization');
    expect(chart).toMatchObject({ title: 'Unique visitors per day', chart: { type: 'line' } });
    expect(chart?.chart?.series.map((s) => [s.name, s.data.length])).toEqual([
      ['Total', 14],
      ['Human', 14],
      ['AI', 14],
    ]);
    const table = blockOf(drawn, 'data_table');
    expect(table?.rows).toHaveLength(11); // the header and the first page's 10 rows
    expect(JSON.stringify(table?.rows?.[0])).toContain('Page');
    expect(button(drawn, ACTION_IDS.shareChart)).not.toBe('');
    const cold = queries();
    // One limit=1 request per day, and the report's own first page for the table.
    expect(
      cold
        .filter((q) => q.limit === '1')
        .map((q) => q.dateFrom)
        .sort(),
    ).toEqual(Array.from({ length: 14 }, (_, i) => day(i - 13)));
    expect(cold.filter((q) => q.limit !== '1')).toEqual([
      { dateFrom: day(-13), dateTo: day(1), limit: '10', offset: '0' },
    ]);
    expect(h.slack.callsTo('conversations.open')).toHaveLength(0);
    expect(h.slack.callsTo('files.completeUploadExternal')).toHaveLength(0);

    // The same chart again within the minute comes from the cache.
    expect((await command('14d chart', 'c2')).status).toBe(200);
    await reply('c2');
    expect(queries()).toHaveLength(cold.length);
  });

  it('falls back to the PNG in the person’s DM when Slack refuses the chart blocks (invalid_blocks)', async () => {
    h.slack.refuseBlocks(DATA_BLOCK_TYPES);
    expect((await command('14d chart', 'c1')).status).toBe(200);
    const note = await h.answer('c1', 1, 10_000);
    expect(h.answers('c1')[0]?.args.blocks).toEqual(
      expect.arrayContaining([expect.objectContaining({ type: 'data_visualization' })]),
    );
    expect(text(note)).toContain('is in your DM with me');
    expect(h.slack.callsTo('conversations.open')[0]?.args.users).toBe(USER_ID);
    const complete = h.slack.callsTo('files.completeUploadExternal')[0];
    // The DM the app opened with that person (the stand-in's id for it, as Slack's, is its own: D…).
    expect(complete?.args.channel_id).toMatch(/^D/);
    expect(JSON.stringify(complete?.args.files)).toContain('Unique visitors per day');
    const upload = h.slack.callsTo('getUploadURLExternal').concat(h.slack.callsTo('files.getUploadURLExternal'))[0];
    expect(String(upload?.args.filename)).toBe(`visitors_${TEST_PROJECT_ID}_${day(-13)}_${day(0)}.png`);
    // Slack reads the screen-reader text as `alt_txt` (files.getUploadURLExternal); the SDK's `alt_text` is ignored.
    expect(h.slack.files[0]?.altText).toMatch(/^Unique visitors per day/);
    const bytes = String(h.slack.callsTo('file_upload')[0]?.args.content);
    expect(bytes).toContain('PNG');
    expect(bytes).toContain('IHDR');
  });

  it('sends the PNG to the DM without trying blocks when the trend has more points than Slack draws (30 days > 20)', async () => {
    expect((await command('30d chart', 'c1')).status).toBe(200);
    const note = await reply('c1');
    expect(text(note)).toContain('is in your DM with me');
    expect(h.answers('c1')).toHaveLength(1);
    expect(h.slack.callsTo('files.completeUploadExternal')[0]?.args.channel_id).toMatch(/^D/);
  });

  it('says when to try again, never the SDK code, when Slack rate-limits the chart’s upload to the DM for long', async () => {
    h.slack.fail('files.completeUploadExternal', { status: 429, retryAfterSec: 30 });
    expect((await command('30d chart', 'c1')).status).toBe(200);
    const said = text(await reply('c1'));
    expect(said).toContain('Slack is busy');
    expect(said).toContain('try again in about 30 seconds');
    expect(said).not.toMatch(/slack_webapi|ratelimited|couldn’t send/);
  });

  it('a chart whose upload URL fails says the upload failed with Slack’s HTTP status, and to try again', async () => {
    h.slack.fail('file_upload', { status: 500 });
    expect((await command('30d chart', 'c1')).status).toBe(200);
    const said = text(await reply('c1'));
    expect(said).toContain('couldn’t send you the chart (`http_500`)');
    expect(said).toMatch(/try again/i);
    expect(h.slack.callsTo('files.completeUploadExternal')).toHaveLength(0);
  });

  it('a chart the workspace’s file settings refuse says a Slack admin must change them', async () => {
    h.slack.fail('files.getUploadURLExternal', { error: 'file_uploads_disabled' });
    expect((await command('30d chart', 'c1')).status).toBe(200);
    const said = text(await reply('c1'));
    expect(said).toContain('Slack admin');
    expect(said).not.toMatch(/try again/i);
  });

  it('the Chart button charts the report’s range in place; Share chart to channel posts it there, drawn by Slack', async () => {
    expect((await command(`${day(-9)} ${day(-2)}`, 'cmd')).status).toBe(200);
    const report = await reply('cmd');
    const before = queries().length;
    expect((await click(ACTION_IDS.chart, button(report, ACTION_IDS.chart), 'chart')).status).toBe(200);
    const drawn = await reply('chart');
    expect(blockOf(drawn, 'data_visualization')?.chart?.series[0]?.data).toHaveLength(8);
    expect(blockOf(drawn, 'data_table')?.rows).toHaveLength(11);
    const chartQueries = queries().slice(before);
    expect(chartQueries).toHaveLength(8); // the table's page is the report's, from the cache
    expect(chartQueries.every((q) => q.limit === '1')).toBe(true);

    expect((await click(ACTION_IDS.shareChart, button(drawn, ACTION_IDS.shareChart), 'share')).status).toBe(200);
    const shared = await eventually(
      () => h.slack.callsTo('chat.postMessage').find((c) => c.args.channel === CHANNEL_ID),
      10_000,
      'chart shared in the channel',
    );
    expect(text(shared)).toContain(`Shared by <@${USER_ID}>`);
    expect(blockOf(shared, 'data_visualization')).toEqual(blockOf(drawn, 'data_visualization'));
    expect(blockOf(shared, 'data_table')).toEqual(blockOf(drawn, 'data_table'));
    expect(blockOf(shared, 'actions')).toBeUndefined();
    expect(h.slack.callsTo('files.completeUploadExternal')).toHaveLength(0);
    expect(queries()).toHaveLength(before + 8); // closed days and the table's page: all from the cache
    expect(h.answers('share')).toHaveLength(0); // the post speaks for itself
  });

  it('Share chart to channel clicked twice in a row posts the chart once', async () => {
    expect((await command(`${day(-9)} ${day(-2)}`, 'cmd')).status).toBe(200);
    expect((await click(ACTION_IDS.chart, button(await reply('cmd'), ACTION_IDS.chart), 'chart')).status).toBe(200);
    const value = button(await reply('chart'), ACTION_IDS.shareChart);
    await Promise.all([click(ACTION_IDS.shareChart, value, 'share'), click(ACTION_IDS.shareChart, value, 'share')]);
    const inChannel = () => h.slack.callsTo('chat.postMessage').filter((c) => c.args.channel === CHANNEL_ID);
    await eventually(() => inChannel()[0], 10_000, 'chart shared in the channel');
    await settle(1_000);
    expect(inChannel()).toHaveLength(1);
    expect(h.answers('share')).toHaveLength(0);
  });

  it('Share chart to channel uploads the PNG there where Slack refuses the blocks (invalid_blocks)', async () => {
    h.slack.refuseBlocks(DATA_BLOCK_TYPES);
    const value = JSON.stringify({ from: day(-9), to: day(-2), limit: 10, offset: 0 });
    expect((await click(ACTION_IDS.shareChart, value, 'share')).status).toBe(200);
    const shared = await eventually(
      () => h.slack.callsTo('files.completeUploadExternal').find((c) => c.args.channel_id === CHANNEL_ID),
      10_000,
      'the PNG shared in the channel',
    );
    expect(String(shared.args.initial_comment)).toContain(`Shared by <@${USER_ID}>`);
    const refused = h.slack.callsTo('chat.postMessage')[0];
    expect(refused?.args.channel).toBe(CHANNEL_ID);
    expect(blockOf(refused as SlackCall, 'data_visualization')).toBeDefined();
    expect(h.app.logs()).toContain('"event":"visitors.chart_post_failed","code":"invalid_blocks"');
    expect(h.answers('share')).toHaveLength(0);
  });

  it('Share chart to channel hit by a 429 is posted once after Retry-After, and the person hears it is coming', async () => {
    h.slack.fail('chat.postMessage', { status: 429, retryAfterSec: 1 }, 1);
    const value = JSON.stringify({ from: day(-9), to: day(-2), limit: 10, offset: 0 });
    expect((await click(ACTION_IDS.shareChart, value, 'share')).status).toBe(200);
    const note = text(await reply('share'));
    expect(note).toContain('Slack is busy');
    expect(note).not.toMatch(/slack_webapi|ratelimited|couldn’t post/);
    await eventually(() => h.slack.messages.some((m) => m.channel === CHANNEL_ID), 10_000, 'the chart shared');
    const [limited, posted] = h.slack.callsTo('chat.postMessage');
    expect((posted?.at ?? 0) - (limited?.at ?? 0)).toBeGreaterThanOrEqual(900);
    expect(blockOf(posted as SlackCall, 'data_visualization')).toBeDefined();
    await settle(1_200);
    expect(h.slack.messages.filter((m) => m.channel === CHANNEL_ID)).toHaveLength(1);
    expect(h.answers('share')).toHaveLength(1);
  });

  it('a chart the bot cannot share in the channel says how to invite it', async () => {
    h.slack.fail('chat.postMessage', { error: 'not_in_channel' });
    const value = JSON.stringify({ from: day(-3), to: day(-1), limit: 10, offset: 0 });
    expect((await click(ACTION_IDS.shareChart, value, 'share')).status).toBe(200);
    expect(text(await reply('share'))).toContain('/invite');
  });

  it('refuses forged Chart and Share chart values privately and asks the service nothing', async () => {
    const forged = ['not json', JSON.stringify({ from: '2020-01-01', to: '2026-11-08', limit: 10, offset: 0 })];
    for (const [i, value] of forged.entries()) {
      expect((await click(i ? ACTION_IDS.shareChart : ACTION_IDS.chart, value, `f${i}`)).status).toBe(200);
      expect(text(await reply(`f${i}`))).toContain('button is not valid');
    }
    expect(queries()).toHaveLength(0);
    expect(h.slack.callsTo('files.completeUploadExternal')).toHaveLength(0);
  });
});
