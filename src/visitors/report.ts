import { z } from 'zod';
import type { Deps } from '../deps.js';
import {
  InvalidRequestError,
  isMintlifyError,
  RateLimitedError,
  UnauthorizedError,
  UnavailableError,
} from '../mintlify/errors.js';
import { type VisitorCounts, VisitorsResponseSchema } from '../mintlify/schemas.js';
import type { VisitorsPage } from './blocks.js';
import { exclusiveEnd, todayNumber, type VisitorsRequest } from './date-range.js';
import { errorCopy } from './messages.js';
import { isClosed, previousPeriod } from './periods.js';

/** Ranges that include today change by the minute: cached briefly. */
export const CACHE_TTL_MS = 60_000;
/** Ranges whose every day has ended do not change: cached for a day. */
export const CLOSED_CACHE_TTL_MS = 24 * 60 * 60_000;

/** Why a page could not be shown, in terms the reply needs. */
export type VisitorsFailure =
  | { kind: 'invalid'; serviceMessage: string; details: string[] }
  | { kind: 'unavailable' }
  | { kind: 'rate_limited'; retryAfterMs: number }
  | { kind: 'unauthorized' }
  | { kind: 'unexpected' };

export type VisitorsResult =
  | { ok: true; page: VisitorsPage; cached: boolean }
  | { ok: false; failure: VisitorsFailure };

const CachedPageSchema = z.object({ response: VisitorsResponseSchema, fetchedAt: z.number() });

/** The store key for one page: the normalised service query, so equal requests share it however they were typed. */
export function cacheKey(projectId: string, request: VisitorsRequest): string {
  return `visitors:v1:${projectId}:${request.from}:${exclusiveEnd(request.to)}:${request.limit}:${request.offset}`;
}

/**
 * One page of the report for `request`: from the 60-second cache when an identical request was served recently,
 * else from the service. Never throws; failures come back as `{ ok: false }` and are logged.
 */
export async function showVisitors(
  deps: Deps,
  project: string,
  request: VisitorsRequest,
  options: { cache?: boolean } = {},
): Promise<VisitorsResult> {
  const useCache = options.cache ?? true;
  const key = cacheKey(project, request);
  const started = performance.now();
  const fields = { project, from: request.from, to: request.to, limit: request.limit, offset: request.offset };

  if (useCache) {
    const hit = await readCache(deps, key);
    if (hit) {
      deps.log.info('visitors.report', { ...fields, rows: hit.response.visitors.length, cached: true });
      return { ok: true, page: { request, ...hit }, cached: true };
    }
  }

  try {
    const response = await deps.mintlify.getVisitors(project, {
      dateFrom: request.from,
      dateTo: exclusiveEnd(request.to),
      limit: request.limit,
      offset: request.offset,
    });
    const fetchedAt = deps.now();
    if (useCache) await writeCache(deps, key, { response, fetchedAt }, cacheTtl(request, fetchedAt));
    deps.log.info('visitors.report', {
      ...fields,
      rows: response.visitors.length,
      has_more: response.hasMore,
      cached: false,
      duration_ms: Math.round(performance.now() - started),
    });
    return { ok: true, page: { request, response, fetchedAt }, cached: false };
  } catch (error) {
    const failure = toFailure(error);
    // The admin has to act on these; the rest are the service's weather.
    const level = failure.kind === 'unauthorized' || failure.kind === 'unexpected' ? 'error' : 'warn';
    deps.log[level]('visitors.report_failed', { ...fields, failure: failure.kind, error });
    return { ok: false, failure };
  }
}

/**
 * The totals of the period of the same length just before `request`'s range, for the report's changes:
 * one `limit=1` request (cached like any page), or undefined when the service could not say.
 */
export async function previousTotals(
  deps: Deps,
  project: string,
  request: VisitorsRequest,
): Promise<VisitorCounts | undefined> {
  const result = await showVisitors(deps, project, { ...previousPeriod(request), limit: 1, offset: 0 });
  return result.ok ? result.page.response.totals : undefined;
}

export function toFailure(error: unknown): VisitorsFailure {
  if (error instanceof InvalidRequestError) {
    return { kind: 'invalid', serviceMessage: error.serviceMessage, details: error.details };
  }
  if (error instanceof RateLimitedError) return { kind: 'rate_limited', retryAfterMs: error.retryAfterMs };
  if (error instanceof UnauthorizedError) return { kind: 'unauthorized' };
  if (error instanceof UnavailableError || isMintlifyError(error)) return { kind: 'unavailable' };
  return { kind: 'unexpected' };
}

/** The private sentence for a failure; "try again" ones carry the exact command to re-run. */
export function failureText(failure: VisitorsFailure, request: VisitorsRequest): string {
  switch (failure.kind) {
    case 'invalid':
      return errorCopy.invalidRequest(failure.serviceMessage, failure.details);
    case 'unavailable':
      return errorCopy.unavailable(request);
    case 'rate_limited':
      return errorCopy.rateLimited(request, failure.retryAfterMs);
    case 'unauthorized':
      return errorCopy.unauthorized;
    case 'unexpected':
      return errorCopy.unexpected(request);
  }
}

async function readCache(deps: Deps, key: string): Promise<z.infer<typeof CachedPageSchema> | undefined> {
  try {
    const parsed = CachedPageSchema.safeParse(await deps.store.kv.get(key));
    return parsed.success ? parsed.data : undefined;
  } catch (error) {
    deps.log.warn('visitors.cache_unavailable', { op: 'get', error });
    return undefined;
  }
}

export function cacheTtl(request: VisitorsRequest, nowMs: number): number {
  return isClosed(request, todayNumber(nowMs)) ? CLOSED_CACHE_TTL_MS : CACHE_TTL_MS;
}

async function writeCache(
  deps: Deps,
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
