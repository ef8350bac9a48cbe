import type { ServerResponse } from 'node:http';
import { z } from 'zod';
import type { Route, SimulatorCounts } from './api-routes.js';
import { FEEDBACK_SOURCES, FEEDBACK_STATUSES, INSIGHT_LIMITS, ULID } from './insights-contract.js';
import type { InsightsDataSet } from './insights-data.js';
import { DOCS_ORIGIN } from './insights-seed.js';
import { dateWindow, instant } from './visitors-query.js';
import { send } from './wire.js';

// Feedback, searches and the assistant's conversations, as analytics.openapi.json documents them: `limit` per
// operation, `source` and `status` filters, opaque cursors (feedback, searches) and ULID cursors (assistant).

type Limited = keyof typeof INSIGHT_LIMITS;

const limit = (operation: Limited) =>
  z
    .string()
    .regex(/^\d+(\.\d+)?$/, 'must be a number')
    .transform(Number)
    .pipe(z.number().min(1).max(INSIGHT_LIMITS[operation].max))
    .transform(Math.floor)
    .default(INSIGHT_LIMITS[operation].fallback);
const statuses = z
  .string()
  .transform((text) => text.split(',').map((s) => s.trim()))
  .pipe(z.array(z.enum(FEEDBACK_STATUSES)))
  .optional();
const OFFSET_CURSOR = /^o([0-9]{1,7})$/;
const offsetCursor = z.string().regex(OFFSET_CURSOR, 'is not a cursor this service gave').optional();
const dates = { dateFrom: instant, dateTo: instant };

const QUERIES = {
  feedback: z.object({
    ...dates,
    limit: limit('feedback'),
    source: z.enum(FEEDBACK_SOURCES).optional(),
    status: statuses,
    cursor: offsetCursor,
  }),
  'feedback-by-page': z.object({
    ...dates,
    limit: limit('feedback-by-page'),
    source: z.enum(FEEDBACK_SOURCES).optional(),
    status: statuses,
  }),
  searches: z.object({ ...dates, limit: limit('searches'), cursor: offsetCursor }),
  assistant: z.object({
    ...dates,
    limit: limit('assistant'),
    cursor: z.string().regex(ULID, 'is not a ULID').optional(),
  }),
  'caller-stats': z.object(dates),
};

type Parsed<K extends keyof typeof QUERIES> = z.output<(typeof QUERIES)[K]> & { fromMs: number; toMs: number };

/** The query of `operation`, or false when it answered 400 with the details. */
function parse<K extends keyof typeof QUERIES>(
  res: ServerResponse,
  operation: K,
  params: URLSearchParams,
  now: number,
): Parsed<K> | false {
  const parsed = QUERIES[operation].safeParse(Object.fromEntries(params));
  const window = parsed.success ? dateWindow(parsed.data.dateFrom, parsed.data.dateTo, now) : undefined;
  if (parsed.success && window && !('details' in window))
    return { ...(parsed.data as z.output<(typeof QUERIES)[K]>), ...window };
  const details =
    window && 'details' in window
      ? window.details
      : (parsed.error?.issues ?? []).map((issue) => ({ message: `${issue.path.join('.')}: ${issue.message}` }));
  send(res, 400, { error: 'Invalid query parameters', details });
  return false;
}

const offsetOf = (cursor: string | undefined) => Number(cursor ? OFFSET_CURSOR.exec(cursor)?.[1] : 0);

export function insightsRoutes({
  data,
  now,
  counts,
}: {
  data: InsightsDataSet;
  now: () => number;
  counts: SimulatorCounts;
}): Route[] {
  const path = (...rest: string[]) => ['v1', 'analytics', ':projectId', ...rest];
  const filtered = (q: Parsed<'feedback' | 'feedback-by-page'>) =>
    data
      .feedback(q.fromMs, q.toMs)
      .filter((entry) => (!q.source || entry.source === q.source) && (!q.status || q.status.includes(entry.status)));
  return [
    {
      method: 'GET',
      pattern: path('feedback'),
      operation: 'feedback',
      handle: ({ res, query, pathsAsUrls, sendRows }) => {
        const q = parse(res, 'feedback', query, now());
        if (!q) return;
        const offset = offsetOf(q.cursor);
        const all = filtered(q);
        const hasMore = offset + q.limit < all.length;
        const urls = pathsAsUrls();
        counts.insights += 1;
        sendRows({
          feedback: all
            .slice(offset, offset + q.limit)
            .map((entry) => (urls ? { ...entry, path: `${DOCS_ORIGIN}${entry.path}` } : entry)),
          nextCursor: hasMore ? `o${offset + q.limit}` : null,
          hasMore,
        });
      },
    },
    {
      method: 'GET',
      pattern: path('feedback', 'by-page'),
      operation: 'feedback-by-page',
      handle: ({ res, query, sendRows }) => {
        const q = parse(res, 'feedback-by-page', query, now());
        if (!q) return;
        const pages = data.byPage(filtered(q));
        counts.insights += 1;
        sendRows({ feedback: pages.slice(0, q.limit), hasMore: pages.length > q.limit });
      },
    },
    {
      method: 'GET',
      pattern: path('searches'),
      operation: 'searches',
      handle: ({ res, query, sendRows }) => {
        const q = parse(res, 'searches', query, now());
        if (!q) return;
        const offset = offsetOf(q.cursor);
        const rows = data.searches(q.fromMs, q.toMs);
        const nextCursor = offset + q.limit < rows.length ? `o${offset + q.limit}` : null;
        const totalSearches = rows.reduce((sum, row) => sum + row.hits, 0);
        counts.insights += 1;
        sendRows({ searches: rows.slice(offset, offset + q.limit), totalSearches, nextCursor });
      },
    },
    {
      method: 'GET',
      pattern: path('assistant'),
      operation: 'assistant',
      handle: ({ res, query, sendRows }) => {
        const q = parse(res, 'assistant', query, now());
        if (!q) return;
        const all = data.conversations(q.fromMs, q.toMs);
        const after = q.cursor ? all.filter((turn) => turn.id < (q.cursor ?? '')) : all;
        const page = after.slice(0, q.limit);
        const hasMore = after.length > q.limit;
        counts.insights += 1;
        sendRows({ conversations: page, nextCursor: hasMore ? (page.at(-1)?.id ?? null) : null, hasMore });
      },
    },
    {
      method: 'GET',
      pattern: path('assistant', 'threads', ':threadId'),
      operation: 'assistant-thread',
      handle: ({ res, params }) => {
        const id = params.threadId;
        if (!ULID.test(id))
          return send(res, 400, { error: 'Invalid thread ID', details: [{ message: 'threadId: is not a ULID' }] });
        const turn = data.conversation(id);
        if (!turn) return send(res, 404, { error: 'Thread not found' });
        const answered = new Date(Date.parse(turn.timestamp) + 4_000).toISOString();
        counts.insights += 1;
        send(res, 200, {
          threadId: id,
          createdAt: turn.timestamp,
          messages: [
            { id: `${id}-1`, role: 'user', content: turn.query, createdAt: turn.timestamp },
            { id: `${id}-2`, role: 'assistant', content: turn.response, createdAt: answered },
          ],
        });
      },
    },
    {
      method: 'GET',
      pattern: path('assistant', 'caller-stats'),
      operation: 'caller-stats',
      handle: ({ res, query }) => {
        const q = parse(res, 'caller-stats', query, now());
        if (!q) return;
        const total = data.conversations(q.fromMs, q.toMs).length;
        const api = Math.floor(total / 4);
        const other = Math.floor(total / 10);
        counts.insights += 1;
        send(res, 200, { web: total - api - other, api, other, total });
      },
    },
  ];
}
