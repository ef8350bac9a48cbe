import { describe, expect, it } from 'vitest';
import { keys } from '../../../src/store/keys.js';
import { EXPORT_MAX_ROWS, exportVisitorsCsv } from '../../../src/visitors/export.js';
import { fakeDeps, fakeSlack, fakeVisitorsService, PROJECT, reportRequest } from './fake-deps.js';

/** Download CSV clicked on a report of November, on its third page. */
const REQUEST = reportRequest({ to: '2026-11-30', offset: 30, project: PROJECT });

function setup(rowCount: number) {
  const service = fakeVisitorsService(rowCount);
  const slack = fakeSlack();
  const { deps, logs } = fakeDeps(service, slack.client);
  return { service, slack, deps, logs };
}

describe('exportVisitorsCsv', () => {
  it('when the app begins to stop, ends at once: no upload, its message says it is restarting and how to re-run', async () => {
    const service = fakeVisitorsService(1_100);
    const slack = fakeSlack();
    const stopping = new AbortController();
    const paging = {
      getVisitors: async (...args: Parameters<typeof service.getVisitors>) => {
        if (service.queries.length === 2) {
          stopping.abort(); // SIGTERM while the third page is on its way, which never comes back
          return new Promise<never>(() => {});
        }
        return service.getVisitors(...args);
      },
    };
    const { deps } = fakeDeps(paging, slack.client);
    const result = await exportVisitorsCsv({ ...deps, stopping: stopping.signal }, REQUEST);
    expect(result).toEqual({ ok: false, reason: 'restarting' });
    expect(slack.calls.map((c) => c.method)).toEqual(['chat.postMessage', 'chat.update']);
    expect(slack.calls[1]?.args.text).toContain('The app is restarting');
    expect(slack.calls[1]?.args.text).toContain('`/visitors --project proj_test 2026-11-01..2026-11-30`');
    expect(
      await deps.store.claims.claim(
        keys.visitorsExport(PROJECT, 'C123DOCS', '2026-11-01', '2026-11-30'),
        'another',
        1_000,
      ),
    ).toBe(true); // the export's lease is released
  });

  it('fetches every page at 250 rows from offset 0 and uploads one CSV in the progress thread', async () => {
    const { service, slack, deps } = setup(1_100);
    const result = await exportVisitorsCsv(deps, REQUEST);
    expect(result).toEqual({ ok: true, rows: 1_100, capped: false, fileId: 'F1' });
    expect(service.queries.map((q) => [q.limit, q.offset])).toEqual([
      [250, 0],
      [250, 250],
      [250, 500],
      [250, 750],
      [250, 1000],
    ]);
    expect(service.queries.every((q) => q.dateFrom === '2026-11-01' && q.dateTo === '2026-12-01')).toBe(true);
    expect(slack.calls.map((c) => c.method)).toEqual([
      'chat.postMessage',
      'chat.update',
      'filesUploadV2',
      'chat.update',
    ]);
    const [post, progress, upload, done] = slack.calls;
    expect(post?.args.text).toContain('0 rows so far');
    expect(progress?.args.text).toContain('1,000 rows so far');
    expect(upload?.args).toMatchObject({
      channel_id: 'C123DOCS',
      thread_ts: '1700000000.001',
      filename: 'visitors_proj_test_2026-11-01_2026-11-30.csv',
    });
    const csv = String(upload?.args.content).split('\r\n');
    expect(csv[0]).toBe('\uFEFFpath,human,ai,total');
    expect(csv).toHaveLength(1 + 1_100 + 1 + 1);
    expect(csv[4]).toBe(`"'=cmd|""/c calc"",x",1097,0,1097`);
    expect(csv[1_101]).toBe('(site total),900,90,950');
    expect(done?.args.text).toContain('1,100 rows');
  });

  it('pages by the limit, as the contract says, when the service answers a page short of it (each path once)', async () => {
    // `limit` is "max results per page", and the contract pages by "increment offset by limit while hasMore".
    const service = fakeVisitorsService(400);
    const slack = fakeSlack();
    const short = {
      getVisitors: async (...args: Parameters<typeof service.getVisitors>) => {
        const answer = await service.getVisitors(...args);
        if (!answer.ok || args[1].offset !== 0) return answer;
        const visitors = answer.value.visitors.filter((row) => row.path !== '/p/7');
        return { ...answer, value: { ...answer.value, visitors } };
      },
    };
    const { deps } = fakeDeps(short, slack.client);
    const result = await exportVisitorsCsv(deps, REQUEST);
    expect(service.queries.map((q) => q.offset)).toEqual([0, 250]);
    expect(result).toMatchObject({ ok: true, rows: 399 });
    const upload = slack.calls.find((c) => c.method === 'filesUploadV2');
    const paths = String(upload?.args.content)
      .split('\r\n')
      .slice(1, -2)
      .map((line) => line.split(',')[0]);
    expect(new Set(paths).size).toBe(paths.length);
  });

  it('stops at 20,000 rows and says so', async () => {
    const { slack, deps } = setup(EXPORT_MAX_ROWS + 10);
    const result = await exportVisitorsCsv(deps, REQUEST);
    expect(result).toMatchObject({ ok: true, rows: EXPORT_MAX_ROWS, capped: true });
    const upload = slack.calls.find((c) => c.method === 'filesUploadV2');
    expect(String(upload?.args.content).split('\r\n')).toHaveLength(EXPORT_MAX_ROWS + 3);
    expect(upload?.args.initial_comment).toContain('stops at 20,000 rows');
  });

  it('is not capped at exactly 20,000 rows', async () => {
    const { deps } = setup(EXPORT_MAX_ROWS);
    expect(await exportVisitorsCsv(deps, REQUEST)).toMatchObject({
      rows: EXPORT_MAX_ROWS,
      capped: false,
    });
  });

  it('returns Slack’s refusal of the progress post and asks the service nothing', async () => {
    const { slack, deps, service } = setup(10);
    slack.failNext('chat.postMessage', 'not_in_channel');
    expect(await exportVisitorsCsv(deps, REQUEST)).toEqual({
      ok: false,
      reason: 'post_failed',
      code: 'not_in_channel',
    });
    expect(service.queries).toHaveLength(0);
  });

  it('returns a refused upload and marks the progress message', async () => {
    const { slack, deps } = setup(10);
    slack.failNext('filesUploadV2', 'not_in_channel');
    expect(await exportVisitorsCsv(deps, REQUEST)).toEqual({
      ok: false,
      reason: 'upload_failed',
      code: 'not_in_channel',
    });
    expect(slack.calls.at(-1)?.args.text).toContain('did not finish');
  });

  it('returns a service failure mid-way and marks the progress message', async () => {
    const { service, slack, deps } = setup(600);
    const original = service.getVisitors;
    let n = 0;
    deps.mintlify.getVisitors = async (project, q) => {
      if (++n === 2) {
        return {
          ok: false,
          operation: 'get visitors',
          project,
          failure: { code: 'unavailable', reason: '503', ambiguous: true, lost: 'error_status', status: 503 },
        };
      }
      return original(project, q);
    };
    expect(await exportVisitorsCsv(deps, REQUEST)).toEqual({
      ok: false,
      reason: 'fetch_failed',
      failure: { code: 'unavailable', reason: '503', ambiguous: true, lost: 'error_status', status: 503 },
    });
    expect(slack.calls.at(-1)?.args.text).toContain('did not finish');
  });

  it('runs one export per channel and range at a time', async () => {
    const { deps } = setup(10);
    await deps.store.claims.claim(
      keys.visitorsExport(PROJECT, 'C123DOCS', '2026-11-01', '2026-11-30'),
      'someone-else',
      60_000,
    );
    expect(await exportVisitorsCsv(deps, REQUEST)).toEqual({ ok: false, reason: 'busy' });
    await deps.store.claims.release(
      keys.visitorsExport(PROJECT, 'C123DOCS', '2026-11-01', '2026-11-30'),
      'someone-else',
    );
    expect((await exportVisitorsCsv(deps, REQUEST)).ok).toBe(true);
    expect((await exportVisitorsCsv(deps, REQUEST)).ok).toBe(true);
  });

  it('the same days in another time zone are other hours: not the export already running', async () => {
    const { deps } = setup(10);
    await deps.store.claims.claim(
      keys.visitorsExport(PROJECT, 'C123DOCS', '2026-11-01', '2026-11-30'),
      'someone-else',
      60_000,
    );
    const auckland = { ...REQUEST, query: { ...REQUEST.query, tz: 'Pacific/Auckland' } };
    expect((await exportVisitorsCsv(deps, auckland)).ok).toBe(true);
  });
});
