import { z } from 'zod';
import { VISITORS_DEFAULT_LIMIT, VISITORS_MAX_LIMIT } from './contract.js';
import { DAY_MS } from './visitors-data.js';

export interface VisitorsRange {
  fromMs: number;
  toMs: number;
  limit: number;
  offset: number;
}

const DEFAULT_RANGE_DAYS = 30;
/**
 * `YYYY-MM-DD`, or ISO 8601's extended date-time: `THH:MM`, optional seconds and fraction (`.` or `,`), and an
 * optional offset `Z`, `±HH`, `±HHMM` or `±HH:MM` (none: UTC).
 */
const DATE = /^(\d{4}-\d{2}-\d{2})(T(\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?)(Z|([+-])(\d{2})(?::?(\d{2}))?)?)?$/;

export const instant = z
  .string()
  .transform((text, ctx) => {
    const ms = parseInstant(text);
    if (ms === undefined) ctx.addIssue({ code: 'custom', message: 'must be YYYY-MM-DD or an ISO 8601 date-time' });
    return ms ?? Number.NaN;
  })
  .optional();
export const integer = (min: number, max: number, fallback: number) =>
  z
    .string()
    .regex(/^-?\d+$/, 'must be an integer')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max))
    .default(fallback);

const QuerySchema = z.object({
  dateFrom: instant,
  dateTo: instant,
  limit: integer(1, VISITORS_MAX_LIMIT, VISITORS_DEFAULT_LIMIT),
  offset: integer(0, Number.MAX_SAFE_INTEGER, 0),
});

/** Parses the visitors query; missing dates default to the 30 days up to tomorrow (exclusive). */
export function parseVisitorsQuery(
  params: URLSearchParams,
  now: number,
): { range: VisitorsRange } | { details: { message: string }[] } {
  const raw = Object.fromEntries(
    ['dateFrom', 'dateTo', 'limit', 'offset'].flatMap((key) => {
      const value = params.get(key);
      return value === null ? [] : [[key, value]];
    }),
  );
  const parsed = QuerySchema.safeParse(raw);
  if (!parsed.success) {
    return { details: parsed.error.issues.map((issue) => ({ message: `${issue.path.join('.')}: ${issue.message}` })) };
  }
  const { dateFrom, dateTo, limit, offset } = parsed.data;
  const window = dateWindow(dateFrom, dateTo, now);
  return 'details' in window ? window : { range: { ...window, limit, offset } };
}

/** The instants [fromMs, toMs): missing dates default to the 30 days up to tomorrow (exclusive). */
export function dateWindow(
  dateFrom: number | undefined,
  dateTo: number | undefined,
  now: number,
): { fromMs: number; toMs: number } | { details: { message: string }[] } {
  const toMs = dateTo ?? (Math.floor(now / DAY_MS) + 1) * DAY_MS;
  const fromMs = dateFrom ?? toMs - DEFAULT_RANGE_DAYS * DAY_MS;
  if (fromMs >= toMs) return { details: [{ message: 'dateFrom must be before dateTo (exclusive)' }] };
  return { fromMs, toMs };
}

function parseInstant(text: string): number | undefined {
  const match = DATE.exec(text);
  const day = match?.[1];
  if (!match || !day) return undefined;
  const dayMs = Date.parse(`${day}T00:00:00Z`);
  // Date.parse rolls over impossible days such as 2025-02-30.
  if (Number.isNaN(dayMs) || new Date(dayMs).toISOString().slice(0, 10) !== day) return undefined;
  const [, , dateTime, time = '', offset, sign, hours = '00', minutes = '00'] = match;
  if (!dateTime) return dayMs;
  if (Number(hours) > 23 || Number(minutes) > 59) return undefined;
  const zone = !offset ? 'Z' : offset === 'Z' ? 'Z' : `${sign}${hours}:${minutes}`;
  const ms = Date.parse(`${day}T${time.replace(',', '.')}${zone}`);
  return Number.isNaN(ms) ? undefined : ms;
}
