import { describe, expect, it } from 'vitest';
import {
  AnalyticsErrorSchema,
  VISITORS_DEFAULT_LIMIT,
  VISITORS_MAX_LIMIT,
  type VisitorCounts,
  type VisitorsResponse,
  VisitorsResponseSchema,
} from '../../tools/simulator/contract.js';
import { useSimulator } from '../fakes/start-simulator.js';
import { call } from './http.js';

const RANGE = 'dateFrom=2025-03-01&dateTo=2025-04-01';

function expectOverlap({ human, ai, total }: VisitorCounts) {
  expect(total).toBeGreaterThanOrEqual(Math.max(human, ai));
  expect(total).toBeLessThanOrEqual(human + ai);
}

describe('visitors analytics', () => {
  const sim = useSimulator({ now: () => Date.parse('2025-06-15T10:00:00Z'), pathCount: 600 });

  async function visitors(query: string): Promise<VisitorsResponse> {
    const { status, json } = await call(sim().url, 'GET', `/v1/analytics/proj_1/visitors?${query}`);
    expect(status).toBe(200);
    return VisitorsResponseSchema.parse(json);
  }

  async function allRows(query: string, limit: number) {
    const rows = [];
    for (let offset = 0; ; offset += limit) {
      const page = await visitors(`${query}&limit=${limit}&offset=${offset}`);
      rows.push(...page.visitors);
      if (!page.hasMore) return rows;
      expect(page.visitors).toHaveLength(limit);
    }
  }

  it('defaults to 50 rows of the last 30 days, sorted by total then path', async () => {
    const page = await visitors('');
    expect(page.visitors).toHaveLength(VISITORS_DEFAULT_LIMIT);
    expect(page.hasMore).toBe(true);
    expect(page.visitors[0]?.path).toBe('/');
    for (const [index, row] of page.visitors.entries()) {
      const next = page.visitors[index + 1];
      if (next) expect(row.total > next.total || (row.total === next.total && row.path < next.path)).toBe(true);
    }
    expect(await visitors('dateFrom=2025-05-17&dateTo=2025-06-16')).toEqual(page);
  });

  it('answers up to 250 rows', async () => {
    expect((await visitors(`${RANGE}&limit=${VISITORS_MAX_LIMIT}`)).visitors).toHaveLength(VISITORS_MAX_LIMIT);
  });

  it.each([
    'limit=0',
    'limit=251',
    'limit=1.5',
    'limit=ten',
    'offset=-1',
    'dateFrom=2025-02-30',
    'dateFrom=yesterday',
    'dateFrom=2025-04-01&dateTo=2025-04-01',
    'dateFrom=2025-04-02&dateTo=2025-04-01',
    'dateFrom=2025-03-10T00:00:00%2B24:00',
    'dateFrom=2025-03-10T24:30:00Z',
    'dateFrom=2025-03-10T00:00:00%2B1',
  ])('rejects %s with details', async (query) => {
    const { status, json } = await call(sim().url, 'GET', `/v1/analytics/proj_1/visitors?${query}`);
    expect(status).toBe(400);
    const body = AnalyticsErrorSchema.parse(json);
    expect(body.error).toBe('Invalid query parameters');
    expect(body.details?.[0]?.message).toBeTruthy();
  });

  it('answers an empty page past the end, still with totals', async () => {
    const page = await visitors(`${RANGE}&offset=100000`);
    expect(page.visitors).toEqual([]);
    expect(page.hasMore).toBe(false);
    expect(page.totals.total).toBeGreaterThan(0);
  });

  it('visits every row exactly once when paging', async () => {
    const rows = await allRows(RANGE, 97);
    expect(new Set(rows.map((row) => row.path)).size).toBe(rows.length);
    expect(rows.length).toBeGreaterThan(100);
    expect(rows.length).toBeLessThanOrEqual(600);
    expect(rows.every((row) => row.total > 0)).toBe(true);
    const { totals } = await visitors(RANGE);
    expect(rows.reduce((sum, row) => sum + row.human, 0)).toBe(totals.human);
    expect(rows.reduce((sum, row) => sum + row.ai, 0)).toBe(totals.ai);
  });

  it('keeps total between max(human, ai) and human + ai', async () => {
    const rows = await allRows(RANGE, 250);
    for (const row of rows) expectOverlap(row);
    expectOverlap((await visitors(RANGE)).totals);
  });

  it('treats dateTo as exclusive', async () => {
    const day = await visitors('dateFrom=2025-03-10&dateTo=2025-03-11&limit=250');
    const sameDay = await visitors('dateFrom=2025-03-10T00:00:00Z&dateTo=2025-03-10T23:59:59.999Z&limit=250');
    expect(sameDay).toEqual(day);
    const twoDays = await visitors('dateFrom=2025-03-10&dateTo=2025-03-12&limit=250');
    expect(twoDays.totals.human).toBeGreaterThanOrEqual(day.totals.human);
    expect(twoDays.totals.ai).toBeGreaterThanOrEqual(day.totals.ai);
    for (const row of day.visitors) {
      const wider = twoDays.visitors.find((other) => other.path === row.path);
      if (wider) expect(wider.human).toBeGreaterThanOrEqual(row.human);
    }
  });

  it('reads ISO 8601 date-times with an offset in each form the contract allows', async () => {
    const utc = await visitors('dateFrom=2025-03-09T11:00:00Z&dateTo=2025-03-10T11:00:00Z&limit=250');
    for (const offset of ['%2B13:00', '%2B1300', '%2B13']) {
      const local = `dateFrom=2025-03-10T00:00:00${offset}&dateTo=2025-03-11T00:00${offset}&limit=250`;
      expect(await visitors(local), offset).toEqual(utc);
    }
    const pacific = await visitors('dateFrom=2025-03-09T00:00:00.000-08:00&dateTo=2025-03-10T00:00:00,5-07:00');
    expect(pacific.totals.total).toBeGreaterThan(0);
  });

  it('has no data outside 2024-2026', async () => {
    for (const range of ['dateFrom=2023-01-01&dateTo=2024-01-01', 'dateFrom=2027-01-01&dateTo=2027-02-01']) {
      const page = await visitors(range);
      expect(page).toEqual({ totals: { human: 0, ai: 0, total: 0 }, visitors: [], hasMore: false });
    }
  });

  it('is deterministic across simulators with the same seed', async () => {
    const { startSimulator } = await import('../../tools/simulator/server.js');
    const other = await startSimulator({ pathCount: 600 });
    try {
      const { json } = await call(other.url, 'GET', `/v1/analytics/p/visitors?${RANGE}`);
      expect(json).toEqual(await visitors(RANGE));
    } finally {
      await other.close();
    }
  });
});

describe('a large visitors data set', () => {
  const sim = useSimulator({ pathCount: 20_000 });

  it('pages quickly once the range is cached', async () => {
    const query = 'dateFrom=2025-01-01&dateTo=2025-02-01&limit=250';
    await call(sim().url, 'GET', `/v1/analytics/p/visitors?${query}`);
    const started = performance.now();
    for (let offset = 250; offset < 25_000; offset += 250) {
      await call(sim().url, 'GET', `/v1/analytics/p/visitors?${query}&offset=${offset}`);
    }
    expect(performance.now() - started).toBeLessThan(5000);
  });
});
