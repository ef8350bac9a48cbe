import pLimit from 'p-limit';
import type { ServiceFailure } from '../../mintlify/failure.js';
import type { VisitorCounts } from '../../mintlify/schemas.js';
import { todayNumber } from '../../zone.js';
import { type Bucket, buckets, type DayRange, type Granularity } from '../periods.js';
import { fetchPage, type PageDeps } from '../report/page.js';

/** Requests for one chart in flight at once: quick, without bursting the service's rate limit. */
const CONCURRENCY = 4;

export interface TrendPoint {
  bucket: Bucket;
  /** Undefined for a bucket that has not started yet. */
  counts?: VisitorCounts;
}

export interface Trend {
  range: DayRange;
  granularity: Granularity;
  points: TrendPoint[];
}

/**
 * Unique visitors per day, week or month of `range`: one `limit=1` request per bucket that has started,
 * each cached like a report page (closed buckets for a day, the current one for a minute).
 */
export async function fetchTrend(
  deps: PageDeps,
  project: string,
  range: DayRange,
): Promise<{ ok: true; trend: Trend } | { ok: false; failure: ServiceFailure }> {
  const { granularity, buckets: all } = buckets(range, todayNumber(deps.now(), range.tz));
  const zone = range.tz ? { tz: range.tz } : {};
  const limit = pLimit(CONCURRENCY);
  const results = await Promise.all(
    all.map((bucket) =>
      limit(async () => {
        if (bucket.state === 'future') return { ok: true as const, point: { bucket } };
        const result = await fetchPage(deps, project, {
          from: bucket.from,
          to: bucket.to,
          ...zone,
          limit: 1,
          offset: 0,
        });
        if (!result.ok) return result;
        return { ok: true as const, point: { bucket, counts: result.page.response.totals } };
      }),
    ),
  );
  const points: TrendPoint[] = [];
  for (const result of results) {
    if (!result.ok) return result;
    points.push(result.point);
  }
  return { ok: true, trend: { range, granularity, points } };
}
