import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { VisitorsResponse } from '../../src/mintlify/schemas.js';
import { type Simulator, startSimulator } from '../../src/simulator/server.js';
import { ACTION_IDS } from '../../src/visitors/blocks.js';
import { type FakeSlackApi, type SlackCall, startFakeSlackApi } from '../fakes/fake-slack-api.js';
import { postForm, postInteraction } from '../fakes/signed-request.js';
import { blockAction, CHANNEL_ID, slashCommand, USER_ID } from '../fixtures/slack.js';
import { dropNamespace, storeKinds, testNamespace } from '../support/redis.js';
import { eventually, startTestApp, TEST_API_KEY, TEST_PROJECT_ID, type TestApp } from '../support/test-app.js';

/** Slack wants an answer within 3 s; the app must answer long before the service does. */
const QUICK_MS = 1_000;
const VISITORS_PATH = `/v1/analytics/${TEST_PROJECT_ID}/visitors`;

interface Block {
  type: string;
  text?: { text: string };
  fields?: { text: string }[];
  elements?: { action_id?: string; value?: string; text?: string | { text: string } }[];
}

describe.each(storeKinds)('/visitors ($kind store)', ({ kind, redisUrl, available }) => {
  let slack: FakeSlackApi;
  let sim: Simulator;
  let app: TestApp | undefined;
  let namespace: string;
  let stub: Server | undefined;

  beforeEach(async (context) => {
    if (!available) context.skip();
    namespace = testNamespace();
    slack = await startFakeSlackApi();
    sim = await startSimulator({ pathCount: 300 });
  });

  afterEach(async () => {
    await app?.stop();
    app = undefined;
    await sim?.close();
    await slack?.close();
    if (stub) {
      stub.closeAllConnections();
      await new Promise((resolve) => stub?.close(resolve));
      stub = undefined;
    }
    if (kind === 'redis' && available) await dropNamespace(namespace);
  });

  async function boot(serviceUrl = sim.url): Promise<TestApp> {
    app = await startTestApp(slack, serviceUrl, { redisUrl, namespace });
    return app;
  }

  function running(): TestApp {
    if (!app) throw new Error('boot() first');
    return app;
  }

  /** Sends `/visitors <text>`; asserts Slack got an empty 200 quickly. */
  async function visitors(text: string, responseId = 'cmd'): Promise<void> {
    const started = performance.now();
    const res = await postForm(
      running().url,
      slashCommand({ command: '/visitors', text, response_url: slack.responseUrl(responseId) }),
    );
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('');
    expect(performance.now() - started).toBeLessThan(QUICK_MS);
  }

  /** Clicks a button; asserts Slack got a 200 quickly. */
  async function click(actionId: string, value: string, responseId = 'act'): Promise<void> {
    const started = performance.now();
    const res = await postInteraction(
      running().url,
      blockAction(actionId, value, { response_url: slack.responseUrl(responseId) }),
    );
    expect(res.status).toBe(200);
    expect(performance.now() - started).toBeLessThan(QUICK_MS);
  }

  const responses = (id: string) => slack.callsTo(`response_url:${id}`);
  async function nthResponse(id: string, n: number): Promise<SlackCall> {
    return eventually(() => responses(id)[n], 5_000, `response ${n} on ${id}`);
  }
  const visitorQueries = () => sim.requests.filter((r) => r.path === VISITORS_PATH).map((r) => r.query);
  const blocksOf = (call: SlackCall) => (call.args.blocks ?? []) as Block[];
  const textOf = (call: SlackCall) => [String(call.args.text ?? ''), ...blocksOf(call).flatMap(blockTexts)].join('\n');
  const buttonValue = (call: SlackCall, actionId: string) =>
    blocksOf(call)
      .flatMap((b) => b.elements ?? [])
      .find((e) => e.action_id === actionId)?.value;
  const settle = (ms = 300) => new Promise((r) => setTimeout(r, ms));

  /** Reads the simulator directly (after the app's requests have been checked). */
  async function servicePage(query: Record<string, string>): Promise<VisitorsResponse> {
    const url = `${sim.url}${VISITORS_PATH}?${new URLSearchParams(query)}`;
    const res = await fetch(url, { headers: { authorization: `Bearer ${TEST_API_KEY}` } });
    expect(res.status).toBe(200);
    return (await res.json()) as VisitorsResponse;
  }

  it('shows the first page privately, asking for an exclusive dateTo', async () => {
    await boot();
    await visitors('2026-11-01 2026-11-08');
    const reply = await nthResponse('cmd', 0);
    expect(reply.args.response_type).toBe('ephemeral');
    // The report, then the previous 8 days' totals for the changes: exactly 2 requests.
    expect(visitorQueries()).toEqual([
      { dateFrom: '2026-11-01', dateTo: '2026-11-09', limit: '10', offset: '0' },
      { dateFrom: '2026-10-24', dateTo: '2026-11-01', limit: '1', offset: '0' },
    ]);

    const expected = await servicePage({ dateFrom: '2026-11-01', dateTo: '2026-11-09', limit: '10', offset: '0' });
    const text = textOf(reply);
    expect(blocksOf(reply)[0]?.text?.text).toBe('Unique visitors · proj_test · 1–8 Nov 2026');
    expect(text).toContain(`*Total visitors*\n${expected.totals.total.toLocaleString('en-US')}`);
    expect(text).toContain(`*Human*\n${expected.totals.human.toLocaleString('en-US')}`);
    expect(text).toContain('not Human + AI');
    expect(text).toContain('Rows 1–10 · dates in UTC');
    for (const [i, row] of expected.visitors.entries()) {
      expect(text).toMatch(
        new RegExp(`\\n\\s*${i + 1}  ${escapeRegExp(row.path)}\\s+${row.total.toLocaleString('en-US')}  `),
      );
    }
    expect(String(reply.args.text)).toContain('Unique visitors · proj_test · 1–8 Nov 2026');
    expect(running().logs()).toContain('"event":"visitors.report"');
  });

  it('Next and Previous replace the message with the neighbouring page, keeping the range', async () => {
    await boot();
    await visitors('2026-11-01..2026-11-08 top 10');
    const first = await nthResponse('cmd', 0);

    await click(ACTION_IDS.next, buttonValue(first, ACTION_IDS.next) ?? '');
    const second = await nthResponse('act', 0);
    expect(second.args.replace_original).toBe(true);
    expect(textOf(second)).toContain('Rows 11–20');
    expect(blocksOf(second)[0]?.text?.text).toBe('Unique visitors · proj_test · 1–8 Nov 2026');

    await click(ACTION_IDS.next, buttonValue(second, ACTION_IDS.next) ?? '');
    const third = await nthResponse('act', 1);
    expect(third.args.replace_original).toBe(true);
    expect(textOf(third)).toContain('Rows 21–30');

    await click(ACTION_IDS.prev, buttonValue(third, ACTION_IDS.prev) ?? '');
    const back = await nthResponse('act', 2);
    expect(back.args.replace_original).toBe(true);
    expect(textOf(back)).toContain('Rows 11–20');
    expect(blocksOf(back)).toEqual(blocksOf(second));

    // The way back was served from the cache: the service saw each page (and the previous totals) once.
    expect(visitorQueries().map((q) => [q.dateFrom, q.dateTo, q.limit, q.offset])).toEqual([
      ['2026-11-01', '2026-11-09', '10', '0'],
      ['2026-10-24', '2026-11-01', '1', '0'],
      ['2026-11-01', '2026-11-09', '10', '10'],
      ['2026-11-01', '2026-11-09', '10', '20'],
    ]);
  });

  it('Previous asks the service for offset − limit', async () => {
    await boot();
    await click(ACTION_IDS.prev, JSON.stringify({ from: '2026-11-01', to: '2026-11-08', limit: 25, offset: 25 }));
    const reply = await nthResponse('act', 0);
    expect(reply.args.replace_original).toBe(true);
    expect(textOf(reply)).toContain('Rows 26–50');
    expect(visitorQueries()[0]).toEqual({ dateFrom: '2026-11-01', dateTo: '2026-11-09', limit: '25', offset: '25' });
  });

  it('Share posts the same report in the channel, saying who shared it', async () => {
    await boot();
    await visitors('2026-11-01 2026-11-08');
    const reply = await nthResponse('cmd', 0);
    await click(ACTION_IDS.share, buttonValue(reply, ACTION_IDS.share) ?? '');
    const post = await eventually(() => slack.callsTo('chat.postMessage')[0], 5_000, 'shared post');
    expect(post.args.channel).toBe(CHANNEL_ID);
    const shared = textOf(post);
    expect(shared).toContain(`Shared by <@${USER_ID}>`);
    expect(shared).toContain('Rows 1–10');
    expect(blocksOf(post).some((b) => b.type === 'actions')).toBe(false);
    const table = (call: SlackCall) => blocksOf(call).filter((b) => b.text?.text.startsWith('```'));
    expect(table(post)).toEqual(table(reply));
    expect(shared).toMatch(/\*Total visitors\*\n[\d,]+ {2}[▲▼±n]/);
    expect(visitorQueries()).toHaveLength(2); // the report and the previous totals, both from the cache on Share
    expect(responses('act')).toHaveLength(0);
  });

  it('Share tells the person privately to invite the bot when it is not in the channel', async () => {
    await boot();
    slack.fail('chat.postMessage', { error: 'not_in_channel' });
    await click(ACTION_IDS.share, JSON.stringify({ from: '2026-11-01', to: '2026-11-08', limit: 10, offset: 0 }));
    const reply = await nthResponse('act', 0);
    expect(reply.args.response_type).toBe('ephemeral');
    expect(reply.args.replace_original).toBe(false);
    expect(textOf(reply)).toContain('/invite');
  });

  it('Download CSV uploads every row of a multi-page range, with totals, in the progress thread', async () => {
    await boot();
    await visitors('2026-10-01..2026-11-20');
    const reply = await nthResponse('cmd', 0);
    await click(ACTION_IDS.csv, buttonValue(reply, ACTION_IDS.csv) ?? '');

    const complete = await eventually(() => slack.callsTo('files.completeUploadExternal')[0], 10_000, 'upload');
    const progress = slack.callsTo('chat.postMessage')[0];
    expect(progress?.args.channel).toBe(CHANNEL_ID);
    expect(String(progress?.args.text)).toContain('rows so far');
    expect(complete.args).toMatchObject({ channel_id: CHANNEL_ID, thread_ts: expect.any(String) });
    expect(String(complete.args.initial_comment)).toContain('1 Oct – 20 Nov 2026');
    const upload = slack.callsTo('file_upload')[0];
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
      () => slack.callsTo('chat.update').find((c) => String(c.args.text).includes('CSV in the thread')),
      5_000,
      'final progress update',
    );
    expect(done.args.ts).toBe(complete.args.thread_ts);
    expect(String(done.args.text)).toContain(`${rows.length} rows`);
  });

  it('four CSV exports running at once never delay /agent: its root message goes out while they all still run', async () => {
    await boot();
    // Every analytics request takes a while, so each export is in flight for seconds.
    sim.injectFault({ kind: 'slow', delayMs: 800, count: 100, match: { method: 'GET', path: /visitors/ } });
    for (let i = 0; i < 4; i++) {
      const day = `2026-11-0${i + 1}`;
      await click(ACTION_IDS.csv, JSON.stringify({ from: day, to: day, limit: 10, offset: 0 }), `csv${i}`);
    }
    await eventually(() => visitorQueries().length === 4, 5_000, 'four exports fetching');
    const res = await postForm(
      running().url,
      slashCommand({ text: 'Document the export queue', response_url: slack.responseUrl('agent') }),
    );
    expect(res.status).toBe(200);
    await eventually(
      () => slack.callsTo('chat.postMessage').some((c) => JSON.stringify(c.args.blocks ?? '').includes('export queue')),
      5_000,
      'the /agent root message',
    );
    expect(slack.callsTo('files.completeUploadExternal')).toHaveLength(0); // no export has finished yet
  });

  it('Download CSV explains how to invite the bot when the upload is refused', async () => {
    await boot();
    slack.fail('files.completeUploadExternal', { error: 'not_in_channel' });
    await click(ACTION_IDS.csv, JSON.stringify({ from: '2026-11-01', to: '2026-11-08', limit: 10, offset: 0 }));
    const reply = await nthResponse('act', 0);
    expect(reply.args.response_type).toBe('ephemeral');
    expect(textOf(reply)).toContain('/invite');
  });

  it('serves an identical request within a minute from the cache', async () => {
    await boot();
    await visitors('30d', 'a');
    await nthResponse('a', 0);
    await visitors('30d', 'b');
    const second = await nthResponse('b', 0);
    expect(visitorQueries()).toHaveLength(2);
    expect(blocksOf(second)).toEqual(blocksOf(responses('a')[0] as SlackCall));
  });

  it('answers bad input with the syntax and sends nothing to the service', async () => {
    await boot();
    await visitors('2026-13-01', 'a');
    await visitors('banana', 'b');
    await visitors('help', 'c');
    const [a, b, c] = [await nthResponse('a', 0), await nthResponse('b', 0), await nthResponse('c', 0)];
    for (const reply of [a, b, c]) {
      expect(reply.args.response_type).toBe('ephemeral');
      expect(textOf(reply)).toContain('How to use `/visitors`');
    }
    expect(textOf(a)).toContain('`2026-13-01` is not a date');
    expect(textOf(b)).toContain("I don't understand `banana`");
    await settle();
    expect(sim.requests).toHaveLength(0);
  });

  it('refuses forged button values privately and sends nothing to the service', async () => {
    await boot();
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
      const reply = await nthResponse(`f${i}`, 0);
      expect(reply.args.replace_original).toBe(false);
      expect(textOf(reply)).toContain('button is not valid');
    }
    await settle();
    expect(sim.requests).toHaveLength(0);
    expect(slack.callsTo('chat.postMessage')).toHaveLength(0);
    expect(running().logs()).toContain('visitors.bad_button_value');
  });

  it('turns a 503 into a private "try again" with the exact command', async () => {
    await boot();
    sim.injectFault({ kind: 'status', status: 503, count: Number.POSITIVE_INFINITY });
    await visitors('2026-11-01 2026-11-08');
    const reply = await nthResponse('cmd', 0);
    const text = textOf(reply);
    expect(reply.args.response_type).toBe('ephemeral');
    expect(text).toContain('try again');
    expect(text).toContain('`/visitors 2026-11-01..2026-11-08`');
    expect(text).not.toMatch(/\bat .*\.(ts|js):\d+|Error:/);
  });

  it('asks people to wait when the service rate-limits', async () => {
    await boot();
    sim.injectFault({ kind: 'rate-limit', retryAfterSec: 30, count: 1 });
    await visitors('2026-10-01 2026-10-31');
    const text = textOf(await nthResponse('cmd', 0));
    expect(text).toContain('about 30 seconds');
    expect(text).toContain('`/visitors 2026-10-01..2026-10-31`');
  });

  it('says the app is misconfigured on a 401 and logs it', async () => {
    await boot();
    sim.injectFault({ kind: 'status', status: 401, count: 1 });
    await visitors('7d');
    const reply = await nthResponse('cmd', 0);
    expect(textOf(reply)).toContain('misconfigured');
    expect(textOf(reply)).toContain('admin');
    expect(running().logs()).toMatch(/"level":"error","event":"visitors.report_failed".*"failure":"unauthorized"/);
  });

  it('answers Slack at once even when the service is slow', async () => {
    await boot();
    sim.injectFault({ kind: 'slow', delayMs: 800, count: 1 });
    const started = performance.now();
    await visitors('7d');
    expect(performance.now() - started).toBeLessThan(400);
    expect(responses('cmd')).toHaveLength(0);
    const reply = await nthResponse('cmd', 0);
    expect(blocksOf(reply)[0]?.type).toBe('header');
  });

  it('shows a 400 from the service in plain words', async () => {
    // The simulator only answers 400 to queries the client refuses to send, so a stub plays the service here.
    stub = createServer((_req, res) => {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ error: 'Invalid query parameters', details: [{ message: 'dateFrom: outside retention' }] }),
      );
    });
    stub.listen(0, '127.0.0.1');
    await once(stub, 'listening');
    await boot(`http://127.0.0.1:${(stub.address() as AddressInfo).port}`);
    await visitors('2026-11-01');
    const reply = await nthResponse('cmd', 0);
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

/** The file inside the multipart body the SDK sent to the upload URL (or the body itself if not multipart). */
async function uploadedText(raw: string): Promise<string> {
  const boundary = /^--(\S+)\r\n/.exec(raw)?.[1];
  if (!boundary) return raw;
  const form = await new Response(raw, {
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  }).formData();
  const file = [...form.values()][0];
  return typeof file === 'string' ? file : ((await file?.text()) ?? '');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
