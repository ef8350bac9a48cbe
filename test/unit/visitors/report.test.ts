import { describe, expect, it } from 'vitest';
import {
  InvalidRequestError,
  RateLimitedError,
  UnauthorizedError,
  UnavailableError,
} from '../../../src/mintlify/errors.js';
import type { VisitorsRequest } from '../../../src/visitors/date-range.js';
import { cacheKey, failureText, showVisitors } from '../../../src/visitors/report.js';
import { fakeDeps, fakeVisitorsService, NOW, PROJECT } from './fake-deps.js';

const REQUEST: VisitorsRequest = { from: '2026-11-01', to: '2026-11-08', limit: 10, offset: 20 };

describe('showVisitors', () => {
  it('asks the service with an exclusive dateTo and returns the page', async () => {
    const service = fakeVisitorsService(100);
    const { deps, logs } = fakeDeps(service);
    const result = await showVisitors(deps, PROJECT, REQUEST);
    expect(service.queries).toEqual([{ dateFrom: '2026-11-01', dateTo: '2026-11-09', limit: 10, offset: 20 }]);
    expect(result).toMatchObject({ ok: true, cached: false, page: { request: REQUEST, fetchedAt: NOW } });
    expect(result.ok && result.page.response.visitors[0]?.path).toBe('/p/20');
    expect(logs.text()).toContain('"event":"visitors.report"');
  });

  it('serves an identical request from the cache, but not a different page', async () => {
    const service = fakeVisitorsService(100);
    const { deps } = fakeDeps(service);
    await showVisitors(deps, PROJECT, REQUEST);
    const again = await showVisitors(deps, PROJECT, { ...REQUEST });
    expect(again).toMatchObject({ ok: true, cached: true, page: { fetchedAt: NOW } });
    expect(service.queries).toHaveLength(1);
    await showVisitors(deps, PROJECT, { ...REQUEST, offset: 30 });
    expect(service.queries).toHaveLength(2);
    await showVisitors(deps, PROJECT, REQUEST, { cache: false });
    expect(service.queries).toHaveLength(3);
  });

  it('keys the cache by the normalised query', () => {
    expect(cacheKey('p', REQUEST)).toBe('visitors:v1:p:2026-11-01:2026-11-09:10:20');
  });

  it('ignores a corrupt cache entry and a failing cache', async () => {
    const service = fakeVisitorsService(5);
    const { deps, logs } = fakeDeps(service);
    await deps.store.kv.set(cacheKey('proj_test', REQUEST), { nonsense: true });
    expect((await showVisitors(deps, PROJECT, REQUEST)).ok).toBe(true);
    deps.store.kv.get = async () => {
      throw new Error('redis down');
    };
    expect((await showVisitors(deps, PROJECT, REQUEST)).ok).toBe(true);
    expect(service.queries).toHaveLength(2);
    expect(logs.text()).toContain('visitors.cache_unavailable');
  });

  it('turns each service error into a failure kind and logs it', async () => {
    const service = fakeVisitorsService(5);
    const { deps, logs } = fakeDeps(service);
    service.failures.push(
      new InvalidRequestError('get visitors', PROJECT, 'Invalid query parameters', ['dateFrom: bad']),
      new UnavailableError('get visitors', PROJECT, '503', true, 503),
      new RateLimitedError('get visitors', PROJECT, 12_300),
      new UnauthorizedError('get visitors', PROJECT, '401 Unauthorized'),
      new TypeError('boom'),
    );
    const kinds = [];
    for (let i = 0; i < 5; i++) {
      const result = await showVisitors(deps, PROJECT, REQUEST);
      kinds.push(result.ok ? 'ok' : result.failure);
    }
    expect(kinds).toEqual([
      { kind: 'invalid', serviceMessage: 'Invalid query parameters', details: ['dateFrom: bad'] },
      { kind: 'unavailable' },
      { kind: 'rate_limited', retryAfterMs: 12_300 },
      { kind: 'unauthorized' },
      { kind: 'unexpected' },
    ]);
    expect(logs.lines.some((l) => l.includes('"level":"error"') && l.includes('"failure":"unauthorized"'))).toBe(true);
  });
});

describe('failureText', () => {
  it('shows the service error and details in plain words, escaped', () => {
    const text = failureText(
      { kind: 'invalid', serviceMessage: 'Invalid <b>', details: ['dateTo: too far', 'x'] },
      REQUEST,
    );
    expect(text).toContain('could not answer that request: Invalid &lt;b&gt;.');
    expect(text).toContain('• dateTo: too far');
  });

  it('gives the exact command to re-run when the service is down or busy', () => {
    expect(failureText({ kind: 'unavailable' }, REQUEST)).toContain('`/visitors 2026-11-01..2026-11-08`');
    expect(failureText({ kind: 'rate_limited', retryAfterMs: 12_300 }, REQUEST)).toContain('about 13 seconds');
  });

  it('sends people to their admin when the key is refused', () => {
    expect(failureText({ kind: 'unauthorized' }, REQUEST)).toMatch(/misconfigured.*admin/);
  });
});
