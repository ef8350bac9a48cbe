import { describe, expect, it } from 'vitest';
import { keys } from '../../../src/store/keys.js';
import { decodeQuery } from '../../../src/visitors/date-range.js';
import type { ReportRequest } from '../../../src/visitors/requests.js';
import {
  runChart,
  runDigest,
  runExport,
  runReport,
  runShare,
  runShareChart,
  runTurnPage,
} from '../../../src/visitors/run-requests.js';
import { visitorsTasks } from '../../../src/visitors/visitors-tasks.js';
import { AUDIENCE, fakeVisitors, NOW, PROJECT, reportRequest, saidIn } from './fake-deps.js';

/** `/visitors 2026-11-01 2026-11-08` in a channel on the default project: the query as typed names no project. */
const REQUEST = reportRequest();
const RESPONSE_URL = AUDIENCE.responseUrl;

function setup() {
  const world = fakeVisitors();
  return { ...world, said: () => world.responses.map((r) => saidIn(r.body)) };
}

const unavailable = { code: 'unavailable', reason: '503', ambiguous: true, lost: 'error_status', status: 503 } as const;

describe('the visitors’ tasks: the use case, then one answer to the person', () => {
  it('report: the page, privately, on its project', async () => {
    const { deps, responses, said } = setup();
    await runReport(deps, REQUEST);
    expect(responses).toHaveLength(1);
    expect(responses[0]).toMatchObject({
      url: RESPONSE_URL,
      body: { response_type: 'ephemeral', replace_original: false },
    });
    expect(said()[0]).toContain(`Unique visitors · ${PROJECT} · 1–8 Nov 2026`);
  });

  it('report: the rows as a data table; where Slack refuses it, the text table, and on a page turn too', async () => {
    const types = (body: Record<string, unknown> | undefined) =>
      ((body?.blocks ?? []) as { type: string }[]).map((b) => b.type);
    const drawn = setup();
    await runReport(drawn.deps, REQUEST);
    expect(drawn.responses).toHaveLength(1);
    expect(types(drawn.responses[0]?.body)).toContain('data_table');

    const world = fakeVisitors(30, { refusedBlocks: ['data_table'] });
    // Slack also refuses the ephemeral the replies module tries after the response_url.
    world.slack.failNext('chat.postEphemeral', 'invalid_blocks');
    await runReport(world.deps, REQUEST);
    const [refused, text] = world.responses;
    expect(types(refused?.body)).toContain('data_table');
    expect(types(text?.body)).not.toContain('data_table');
    expect(saidIn(text?.body)).toContain('```');
    expect(text?.body).toMatchObject({ response_type: 'ephemeral', replace_original: false });
    expect(world.slack.calls.map((c) => c.method)).toEqual(['chat.postEphemeral']);
    expect(world.logs.text()).toContain('"event":"visitors.report_as_text"');

    await runTurnPage(world.deps, { ...REQUEST, query: { ...REQUEST.query, offset: 10 } });
    const [tried, replaced] = world.responses.slice(2);
    expect(types(tried?.body)).toContain('data_table');
    expect(replaced?.body).toMatchObject({ replace_original: true });
    expect(saidIn(replaced?.body)).toContain('Rows 11–20');
    expect(types(replaced?.body)).not.toContain('data_table');
  });

  it('report: a failure gives the command to re-run as typed', async () => {
    const { deps, service, said } = setup();
    service.failures.push({ code: 'rate_limited', retryAfterMs: 30_000 });
    await runReport(deps, REQUEST);
    expect(said()).toHaveLength(1);
    expect(said()[0]).toContain('about 30 seconds: `/visitors 2026-11-01..2026-11-08`');
  });

  it('chart: a failure gives the chart’s command to re-run, not the report’s', async () => {
    const { deps, service, said } = setup();
    service.failures.push({ code: 'rate_limited', retryAfterMs: 30_000 });
    await runChart(deps, REQUEST);
    expect(said()[0]).toContain('about 30 seconds: `/visitors 2026-11-01..2026-11-08 chart`');
  });

  it('turn_page: the page replaces the report the button was on; a failure is a new private note', async () => {
    const { deps, service, responses } = setup();
    const page: ReportRequest = { ...REQUEST, query: { ...REQUEST.query, offset: 10, project: PROJECT } };
    await runTurnPage(deps, page);
    expect(responses[0]?.body).toMatchObject({ replace_original: true });
    expect(saidIn(responses[0]?.body)).toContain('Rows 11–20');
    service.failures.push(unavailable);
    await runTurnPage(deps, { ...page, query: { ...page.query, offset: 20 } });
    expect(responses[1]?.body).toMatchObject({ response_type: 'ephemeral', replace_original: false });
    expect(saidIn(responses[1]?.body)).toContain(`\`/visitors --project ${PROJECT} 2026-11-01..2026-11-08\``);
  });

  it('share: the report goes to the channel and nothing is said privately; a refusal says how to invite the bot', async () => {
    const { deps, slack, said } = setup();
    await runShare(deps, REQUEST);
    expect(slack.calls.map((c) => c.method)).toEqual(['chat.postMessage']);
    expect(said()).toEqual([]);
    slack.failNext('chat.postMessage', 'not_in_channel');
    const nextPage = { ...REQUEST, query: { ...REQUEST.query, offset: 10 } }; // the same page again is a double click
    await runShare(deps, nextPage);
    expect(said()[0]).toContain('/invite');
    await runShare(deps, REQUEST);
    expect(slack.calls.map((c) => c.method)).toHaveLength(2);
    expect(said()).toHaveLength(1);
  });

  it('export: the file speaks for itself; an export already running is said privately', async () => {
    const { deps, slack, said } = setup();
    await runExport(deps, REQUEST);
    expect(slack.calls.some((c) => c.method === 'filesUploadV2')).toBe(true);
    expect(said()).toEqual([]);
    await deps.store.claims.claim(
      keys.visitorsExport(PROJECT, AUDIENCE.channel, '2026-11-01', '2026-11-08'),
      'peer',
      60_000,
    );
    await runExport(deps, REQUEST);
    expect(said()[0]).toContain('already running');
  });

  it('chart: drawn by Slack in the reply (a line chart and the pages as a table), with a button to share it here', async () => {
    const { deps, slack, responses } = setup();
    await runChart(deps, REQUEST);
    expect(slack.calls).toEqual([]);
    const blocks = responses[0]?.body.blocks as { type: string; elements?: { action_id: string; value: string }[] }[];
    expect(blocks.map((b) => b.type)).toEqual(['section', 'data_visualization', 'data_table', 'actions']);
    const share = blocks.flatMap((b) => b.elements ?? [])[0];
    expect(share?.action_id).toBe('visitors.share_chart');
    expect(decodeQuery(share?.value, NOW)).toEqual({ ...REQUEST.query, project: PROJECT });
  });

  it('chart: past Slack’s 20 points, the picture goes to the DM, then a private note with the share button', async () => {
    const { deps, slack, responses } = setup();
    await runChart(deps, reportRequest({ from: '2026-10-01', to: '2026-10-31' }));
    expect(slack.calls.map((c) => c.method)).toEqual([
      'conversations.open',
      'files.getUploadURLExternal',
      'files.completeUploadExternal',
    ]);
    const blocks = responses[0]?.body.blocks as { elements?: { action_id: string }[] }[];
    expect(blocks.flatMap((b) => b.elements ?? [])[0]?.action_id).toBe('visitors.share_chart');
  });

  it('share_chart: a service failure is said privately and nothing is uploaded', async () => {
    const { deps, slack, service, said } = setup();
    service.failures.push(unavailable);
    await runShareChart(deps, REQUEST);
    expect(slack.calls).toEqual([]);
    expect(said()[0]).toContain('not answering right now');
  });

  it('digest: the change is made and confirmed privately', async () => {
    const { deps, said } = setup();
    const schedule = { cadence: 'daily', hour: 8, minute: 0 } as const;
    const command = { kind: 'subscribe', schedule } as const;
    await runDigest(deps, { command, project: PROJECT, audience: AUDIENCE });
    expect(said()[0]).toContain('will get the visitors digest daily at 08:00 UTC');
  });
});

describe('their lanes', () => {
  it('runs reports, pages, shares, digest commands and an export’s put-off last edit in the reports lane, the rest in lanes of their own', () => {
    const lanes = Object.fromEntries(Object.values(visitorsTasks).map((task) => [task.kind, task.lane]));
    expect(lanes).toEqual({
      'visitors.report': 'reports',
      'visitors.turn_page': 'reports',
      'visitors.share': 'reports',
      'visitors.digest': 'reports',
      'visitors.scheduled_digest': 'digests',
      'visitors.export': 'exports',
      'visitors.finish_export': 'reports',
      'visitors.chart': 'charts',
      'visitors.share_chart': 'charts',
      'visitors.digest_chart': 'charts',
    });
  });
});
