import { describe, expect, it } from 'vitest';
import { sendChart, shareChart } from '../../../../src/visitors/chart/send.js';
import { fakeVisitors, PROJECT, reportRequest } from '../fake-deps.js';

/** A chart of the 14 days up to 21 Nov (one point a day), asked for in #docs. */
const REQUEST = reportRequest({ from: '2026-11-08', to: '2026-11-21' });

const setup = () => fakeVisitors();

/** 31 days: more points than Slack draws in a chart block (20), so the PNG goes to the DM. */
const MONTH = reportRequest({ from: '2026-10-22', to: '2026-11-21' });

describe('sendChart', () => {
  it('answers with the chart and the top pages drawn by Slack, one limit=1 request a day and the first page', async () => {
    const { deps, slack, service, responses } = setup();
    expect(await sendChart(deps, REQUEST)).toEqual({ ok: true });
    expect(service.queries.filter((q) => q.limit === 1)).toHaveLength(14);
    expect(service.queries.filter((q) => q.limit !== 1)).toEqual([expect.objectContaining({ limit: 10, offset: 0 })]);
    expect(slack.calls).toEqual([]);
    const blocks = responses[0]?.body.blocks as { type: string }[];
    expect(blocks.map((b) => b.type)).toEqual(['section', 'data_visualization', 'data_table', 'actions']);
  });

  it('past 20 points uploads the PNG into the person’s DM, named for its project and range, then says so', async () => {
    const { deps, slack, service, responses } = setup();
    expect(await sendChart(deps, MONTH)).toEqual({ ok: true });
    expect(service.queries.filter((q) => q.limit === 1)).toHaveLength(31);
    const [open, upload, complete] = slack.calls;
    expect(open).toMatchObject({ method: 'conversations.open', args: { users: 'U123ALICE' } });
    expect(upload).toMatchObject({ method: 'files.getUploadURLExternal' });
    expect(upload?.args).toMatchObject({ filename: `visitors_${PROJECT}_2026-10-22_2026-11-21.png` });
    expect(upload?.args.length).toBeGreaterThan(1_000); // the PNG's size in bytes
    // Slack's reference names the screen-reader text `alt_txt`; `alt_text` (the SDK's name) is ignored by Slack.
    expect(String(upload?.args.alt_txt)).toContain('Unique visitors per day');
    expect(upload?.args).not.toHaveProperty('alt_text');
    expect(complete).toMatchObject({ method: 'files.completeUploadExternal', args: { channel_id: 'DU123ALICE' } });
    expect(JSON.stringify(responses.map((r) => r.body))).toContain('is in your DM with me');
  });

  it('returns a refused DM upload with its code', async () => {
    const { deps, slack } = setup();
    slack.failNext('files.completeUploadExternal', 'invalid_channel');
    expect(await sendChart(deps, MONTH)).toEqual({ ok: false, reason: 'dm_failed', code: 'invalid_channel' });
  });

  it('uploads nothing when the service gives no numbers', async () => {
    const { deps, slack, service } = setup();
    service.failures.push({ code: 'unavailable', reason: 'timed out', ambiguous: true, lost: 'timeout' });
    expect(await sendChart(deps, REQUEST)).toMatchObject({ ok: false, reason: 'fetch_failed' });
    expect(slack.calls).toEqual([]);
  });
});

describe('shareChart', () => {
  it('posts the chart and the top pages drawn by Slack in the conversation, saying who shared it; no file', async () => {
    const { deps, slack, service, logs } = setup();
    expect(await shareChart(deps, REQUEST)).toEqual({ ok: true });
    expect(slack.calls.map((c) => c.method)).toEqual(['chat.postMessage']);
    const post = slack.calls[0]?.args as { channel: string; text: string; blocks: { type: string }[] };
    expect(post.channel).toBe('C123DOCS');
    expect(post.blocks.map((b) => b.type)).toEqual(['section', 'data_visualization', 'data_table']);
    expect(post.text).toContain('Shared by <@U123ALICE>');
    expect(service.queries.filter((q) => q.limit !== 1)).toEqual([expect.objectContaining({ limit: 10, offset: 0 })]);
    expect(logs.text()).toContain('"event":"visitors.chart_shared"');
    expect(logs.text()).toContain('"as":"blocks"');
  });

  it('uploads the PNG there instead where Slack refuses the blocks (invalid_blocks), or past 20 points', async () => {
    for (const [request, refuse] of [
      [REQUEST, true],
      [MONTH, false],
    ] as const) {
      const { deps, slack, logs } = setup();
      if (refuse) slack.failNext('chat.postMessage', 'invalid_blocks');
      expect(await shareChart(deps, request)).toEqual({ ok: true });
      const methods = slack.calls.map((c) => c.method);
      expect(methods).toEqual([
        ...(refuse ? ['chat.postMessage'] : []),
        'files.getUploadURLExternal',
        'files.completeUploadExternal',
      ]);
      const complete = slack.calls.at(-1)?.args;
      expect(complete).toMatchObject({ channel_id: 'C123DOCS' });
      expect(String(complete?.initial_comment)).toContain('Shared by <@U123ALICE>');
      expect(logs.text()).toContain('"as":"picture"');
    }
  });

  it('returns Slack’s refusal as a failed post in the conversation, without a picture after a refused post', async () => {
    const { deps, slack } = setup();
    slack.failNext('chat.postMessage', 'not_in_channel');
    expect(await shareChart(deps, REQUEST)).toEqual({ ok: false, reason: 'post_failed', code: 'not_in_channel' });
    expect(slack.calls.map((c) => c.method)).toEqual(['chat.postMessage']);
    const month = setup();
    month.slack.failNext('files.completeUploadExternal', 'not_in_channel');
    expect(await shareChart(month.deps, MONTH)).toEqual({ ok: false, reason: 'post_failed', code: 'not_in_channel' });
  });

  it('shares nothing when the service gives no numbers', async () => {
    const { deps, slack, service } = setup();
    service.failures.push({ code: 'unavailable', reason: '503', ambiguous: true, lost: 'error_status', status: 503 });
    expect(await shareChart(deps, REQUEST)).toMatchObject({ ok: false, reason: 'fetch_failed' });
    expect(slack.calls).toEqual([]);
  });
});
