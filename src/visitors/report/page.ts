import { z } from 'zod';
import type { Deps } from '../../deps.js';
import { describeFailure, type ServiceFailure } from '../../mintlify/failure.js';
import { VisitorsResponseSchema } from '../../mintlify/schemas.js';
import { keys } from '../../store/keys.js';
import { todayNumber } from '../../zone.js';
import type { VisitorsPage } from '../blocks.js';
import type { ReportQuery } from '../date-range.js';
import { isClosed, serviceWindow } from '../periods.js';

/** Ranges that include today change by the minute: cached briefly. */
export const CACHE_TTL_MS = 60_000;
/** Ranges whose every day has ended do not change: cached for a day. */
export const CLOSED_CACHE_TTL_MS = 24 * 60 * 60_000;

/** What reading report pages needs: the service, the store for the cache, the log and the clock. */
export type PageDeps = Pick<Deps, 'mintlify' | 'store' | 'log' | 'now'>;

export type PageResult = { ok: true; page: VisitorsPage; cached: boolean } | { ok: false; failure: ServiceFailure };

const CachedPageSchema = z.object({ response: VisitorsResponseSchema, fetchedAt: z.number() });

/** The store key for one page: the normalised service query, so equal requests share it however they were typed. */
export function cacheKey(projectId: string, query: ReportQuery, until?: number): string {
  const { dateFrom, dateTo } = serviceWindow(query, until);
  return keys.visitorsPage(projectId, dateFrom, dateTo, query.limit, query.offset);
}

/**
 * One page of the report for `query`: from the 60-second cache when an identical request was served recently,
 * else from the service. `until` ends the window at that instant instead of after the last day (a previous
 * period's same hours). Never throws; failures come back as `{ ok: false }` and are logged.
 */
export async function fetchPage(
  deps: PageDeps,
  project: string,
  query: ReportQuery,
  options: { cache?: boolean; until?: number | undefined } = {},
): Promise<PageResult> {
  const useCache = options.cache ?? true;
  const { until } = options;
  const key = cacheKey(project, query, until);
  const started = performance.now();
  const fields = { project, from: query.from, to: query.to, limit: query.limit, offset: query.offset };

  if (useCache) {
    const hit = await readCache(deps, key);
    if (hit) {
      deps.log.info('visitors.report', { ...fields, rows: hit.response.visitors.length, cached: true });
      return { ok: true, page: { query, ...hit }, cached: true };
    }
  }

  const answer = await deps.mintlify.getVisitors(project, {
    ...serviceWindow(query, until),
    limit: query.limit,
    offset: query.offset,
  });
  if (!answer.ok) {
    const { failure } = answer;
    // The admin has to act on a refused key; the rest are the service's weather.
    const level = failure.code === 'unauthorized' ? 'error' : 'warn';
    deps.log[level]('visitors.report_failed', { ...fields, failure: failure.code, error: describeFailure(answer) });
    return { ok: false, failure };
  }
  const response = answer.value;
  const fetchedAt = deps.now();
  // A cut window moves with the clock: kept as briefly as a running range.
  const ttl = until === undefined ? cacheTtl(query, fetchedAt) : CACHE_TTL_MS;
  if (useCache) await writeCache(deps, key, { response, fetchedAt }, ttl);
  deps.log.info('visitors.report', {
    ...fields,
    rows: response.visitors.length,
    has_more: response.hasMore,
    cached: false,
    duration_ms: Math.round(performance.now() - started),
  });
  return { ok: true, page: { query, response, fetchedAt }, cached: false };
}

async function readCache(deps: PageDeps, key: string): Promise<z.infer<typeof CachedPageSchema> | undefined> {
  try {
    const parsed = CachedPageSchema.safeParse(await deps.store.kv.get(key));
    return parsed.success ? parsed.data : undefined;
  } catch (error) {
    deps.log.warn('visitors.cache_unavailable', { op: 'get', error });
    return undefined;
  }
}

export function cacheTtl(query: ReportQuery, nowMs: number): number {
  return isClosed(query, todayNumber(nowMs, query.tz)) ? CLOSED_CACHE_TTL_MS : CACHE_TTL_MS;
}

async function writeCache(
  deps: PageDeps,
  key: string,
  value: z.infer<typeof CachedPageSchema>,
  ttlMs: number,
): Promise<void> {
  try {
    await deps.store.kv.set(key, value, ttlMs);
  } catch (error) {
    deps.log.warn('visitors.cache_unavailable', { op: 'set', error });
  }
}
