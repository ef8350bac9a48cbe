import { describe, expect, it } from 'vitest';
import { showReport } from '../../../../src/visitors/report/show.js';
import type { ProjectQuery } from '../../../../src/visitors/requests.js';
import { fakeDeps, fakeVisitorsService, PROJECT } from '../fake-deps.js';

const QUERY: ProjectQuery = { from: '2026-11-01', to: '2026-11-08', limit: 10, offset: 0, project: PROJECT };

describe('showReport', () => {
  it('returns the page and the totals of the same days of the month before, for the changes', async () => {
    const service = fakeVisitorsService(30);
    const { deps } = fakeDeps(service);
    const result = await showReport(deps, QUERY);
    expect(service.queries).toEqual([
      { dateFrom: '2026-11-01', dateTo: '2026-11-09', limit: 10, offset: 0 },
      { dateFrom: '2026-10-01', dateTo: '2026-10-09', limit: 1, offset: 0 },
    ]);
    expect(service.projects).toEqual([PROJECT, PROJECT]);
    expect(result).toMatchObject({ ok: true, page: { query: QUERY }, previous: { human: 900, ai: 90, total: 950 } });
  });

  it('returns the service’s failure as a value and asks nothing more', async () => {
    const service = fakeVisitorsService(30);
    service.failures.push({ code: 'rate_limited', retryAfterMs: 5_000 });
    const { deps } = fakeDeps(service);
    expect(await showReport(deps, QUERY)).toEqual({
      ok: false,
      reason: 'fetch_failed',
      failure: { code: 'rate_limited', retryAfterMs: 5_000 },
    });
    expect(service.queries).toHaveLength(1);
  });

  it('still shows the page when the previous period cannot be read: without changes', async () => {
    const service = fakeVisitorsService(30);
    const { deps } = fakeDeps(service);
    const original = service.getVisitors;
    deps.mintlify.getVisitors = async (project, query) =>
      query.limit === 1
        ? { ok: false, operation: 'get visitors', project, failure: { code: 'rate_limited', retryAfterMs: 1 } }
        : original(project, query);
    expect(await showReport(deps, QUERY)).toMatchObject({ ok: true, previous: undefined });
  });
});
