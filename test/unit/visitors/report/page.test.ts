import { describe, expect, it } from 'vitest';
import type { ServiceFailure } from '../../../../src/mintlify/failure.js';
import type { ReportQuery } from '../../../../src/visitors/date-range.js';
import { cacheKey, fetchPage } from '../../../../src/visitors/report/page.js';
import { fakeDeps, fakeVisitorsService, NOW, PROJECT } from '../fake-deps.js';

const QUERY: ReportQuery = { from: '2026-11-01', to: '2026-11-08', limit: 10, offset: 20 };

describe('fetchPage', () => {
  it('asks the service with an exclusive dateTo and returns the page', async () => {
    const service = fakeVisitorsService(100);
    const { deps, logs } = fakeDeps(service);
    const result = await fetchPage(deps, PROJECT, QUERY);
    expect(service.queries).toEqual([{ dateFrom: '2026-11-01', dateTo: '2026-11-09', limit: 10, offset: 20 }]);
    expect(result).toMatchObject({ ok: true, cached: false, page: { query: QUERY, fetchedAt: NOW } });
    expect(result.ok && result.page.response.visitors[0]?.path).toBe('/p/20');
    expect(logs.text()).toContain('"event":"visitors.report"');
  });

  it('serves an identical query from the cache, but not a different page', async () => {
    const service = fakeVisitorsService(100);
    const { deps } = fakeDeps(service);
    await fetchPage(deps, PROJECT, QUERY);
    const again = await fetchPage(deps, PROJECT, { ...QUERY });
    expect(again).toMatchObject({ ok: true, cached: true, page: { fetchedAt: NOW } });
    expect(service.queries).toHaveLength(1);
    await fetchPage(deps, PROJECT, { ...QUERY, offset: 30 });
    expect(service.queries).toHaveLength(2);
    await fetchPage(deps, PROJECT, QUERY, { cache: false });
    expect(service.queries).toHaveLength(3);
  });

  it('keys the cache by the normalised query', () => {
    expect(cacheKey('p', QUERY)).toBe('visitors:v1:p:2026-11-01:2026-11-09:10:20');
  });

  it('ignores a corrupt cache entry and a failing cache', async () => {
    const service = fakeVisitorsService(5);
    const { deps, logs } = fakeDeps(service);
    await deps.store.kv.set(cacheKey('proj_test', QUERY), { nonsense: true });
    expect((await fetchPage(deps, PROJECT, QUERY)).ok).toBe(true);
    deps.store.kv.get = async () => {
      throw new Error('redis down');
    };
    expect((await fetchPage(deps, PROJECT, QUERY)).ok).toBe(true);
    expect(service.queries).toHaveLength(2);
    expect(logs.text()).toContain('visitors.cache_unavailable');
  });

  it('passes each service failure on as its value and logs it', async () => {
    const service = fakeVisitorsService(5);
    const { deps, logs } = fakeDeps(service);
    const failures: ServiceFailure[] = [
      { code: 'refused', message: 'Invalid query parameters', details: ['dateFrom: bad'] },
      { code: 'unavailable', reason: '503', ambiguous: true, lost: 'error_status', status: 503 },
      { code: 'rate_limited', retryAfterMs: 12_300 },
      { code: 'unauthorized', status: 401, message: 'Invalid API key' },
    ];
    service.failures.push(...failures);
    const seen = [];
    for (let i = 0; i < failures.length; i++) {
      const result = await fetchPage(deps, PROJECT, QUERY);
      seen.push(result.ok ? 'ok' : result.failure);
    }
    expect(seen).toEqual(failures);
    expect(logs.lines.some((l) => l.includes('"level":"error"') && l.includes('"failure":"unauthorized"'))).toBe(true);
  });
});
