import { z } from 'zod';
import { takeProjectOption } from '../config/project-option.js';
import { PROJECT_ID, VISITORS_MAX_LIMIT } from '../mintlify/schemas.js';
import { inlineCode } from '../slack/mrkdwn.js';
import { isTimeZone, todayNumber, UTC } from '../zone.js';
import { dayNumber, dayString, spanDays } from './days.js';
import { monthIndex, monthRange, namedMonth } from './months.js';

/**
 * `/visitors` command syntax → a validated query. Pure: "now" and the person's zone come from the caller.
 * Days are calendar days of the person's zone (`tz`, UTC when unknown) written `YYYY-MM-DD`; `from` and `to` are
 * both inclusive, as people read them.
 * Problems are mrkdwn: any user text they echo is escaped.
 */

export const MAX_RANGE_DAYS = 366;
export const DEFAULT_RANGE_DAYS = 7;
export const DEFAULT_ROWS = 10;
/** Far beyond any docs site; a button claiming more was forged. */
export const MAX_OFFSET = 100_000;

export const IsoDaySchema = z
  .string()
  .refine((day) => dayNumber(day) !== undefined, 'not a calendar date (YYYY-MM-DD)');

/** Everything needed to fetch (and re-fetch) one page of the report. Also the button value. */
export const ReportQuerySchema = z
  .object({
    from: IsoDaySchema,
    to: IsoDaySchema,
    limit: z.number().int().min(1).max(VISITORS_MAX_LIMIT),
    offset: z.number().int().min(0).max(MAX_OFFSET),
    /** Set once the report is for a project: pages, Share and CSV stay on it whatever the channel's routing. */
    project: z.string().regex(PROJECT_ID).optional(),
    /** The asker's IANA zone, whose days these are; UTC when left out. */
    tz: z.string().max(64).refine(isTimeZone, 'not a time zone').optional(),
  })
  .strict()
  .refine((r) => r.from <= r.to, { message: 'the start is after the end', path: ['to'] })
  .refine((r) => spanDays(r.from, r.to) <= MAX_RANGE_DAYS, {
    message: `the range is longer than ${MAX_RANGE_DAYS} days`,
    path: ['to'],
  });
export type ReportQuery = z.infer<typeof ReportQuerySchema>;

export type ParsedCommand =
  | { kind: 'report'; query: ReportQuery; chart?: boolean }
  | { kind: 'help' }
  | { kind: 'invalid'; problem: string };

interface Range {
  from: number;
  to: number;
  /** How the user wrote it, for messages. */
  source: string;
}

const PRESET_DAYS = /^(\d+)d$/;
/** `N days`, `N weeks`: days each (a Map, so a word such as `constructor` is no unit). */
const UNIT_DAYS = new Map([
  ['day', 1],
  ['days', 1],
  ['week', 7],
  ['weeks', 7],
]);
const DATE_LIKE = /^\d{1,4}-\d{1,2}-\d{1,2}$/;
const RANGE_SEPARATORS = new Set(['..', 'to', '-', '–', '—']);

/**
 * Parses the text after `/visitors`. Forms (order-free, case-insensitive):
 * nothing (last 7 days), `today`, `yesterday`, `Nd`, `this week`, `last week` (weeks start on Monday),
 * `this month`, `last month`, a month's name (`nov`,
 * `november 2025`), `YYYY-MM-DD`,
 * `YYYY-MM-DD YYYY-MM-DD`, `YYYY-MM-DD..YYYY-MM-DD`, plus `top N`, `chart` and `help`.
 */
export function parseVisitorsCommand(text: string, nowMs: number, tz: string = UTC): ParsedCommand {
  const option = takeProjectOption(plainPunctuation(text));
  if ('missing' in option) return invalid('`--project` needs a project id, e.g. `/visitors --project proj_b 30d`.');
  const parsed = parseRange(option.rest, todayNumber(nowMs, tz), tz);
  if (parsed.kind !== 'report') return parsed;
  const query = { ...parsed.query, ...(option.project && { project: option.project }), ...(tz !== UTC && { tz }) };
  return { ...parsed, query };
}

function parseRange(text: string, today: number, tz: string): ParsedCommand {
  const tokens = text
    .trim()
    .toLowerCase()
    .replace(/\s*\.\.\s*/g, ' .. ')
    .split(/\s+/)
    .filter(Boolean);
  if (tokens.some((t) => t === 'help' || t === '?' || t === '-h' || t === '--help')) return { kind: 'help' };
  const read = readTokens(tokens, today);
  if ('problem' in read) return invalid(read.problem);
  const { limit, chart, ranges, dates } = read;

  if (dates.length > 2) return invalid('Give at most two dates: a start and an end.');
  const first = dates[0];
  const last = dates[1] ?? first;
  if (first && last) ranges.push({ from: first.day, to: last.day, source: dates.map((d) => d.source).join(' ') });
  if (ranges.length > 1) return invalid('Give one range only, e.g. `30d` or `2026-11-01 2026-11-08`.');

  const range = ranges[0] ?? { from: today - DEFAULT_RANGE_DAYS + 1, to: today, source: 'default' };
  const problem = rangeProblem(range.from, range.to, today, tz);
  if (problem) return invalid(problem);
  return {
    kind: 'report',
    query: { from: dayString(range.from), to: dayString(range.to), limit: limit ?? DEFAULT_ROWS, offset: 0 },
    ...(chart && { chart }),
  };
}

/**
 * Typed punctuation as a phone's or a desktop's autocorrect leaves it, read as typed: quotes dropped (no word here
 * holds one), `—project` (from `--project`), Unicode hyphens and minus, and a dash or ellipsis between two dates
 * (`2026-11-01–2026-11-08`, `2026-11-01…2026-11-08`, `2026-11-01-2026-11-08`) as `..`.
 */
export function plainPunctuation(text: string): string {
  return text
    .replace(/[\u2018\u2019\u201A\u201B\u201C\u201D\u201E\u201F"']/g, '')
    .replace(/(^|\s)[\u2013\u2014]-?(?=project\b)/, '$1--')
    .replace(/[\u2010-\u2012\u2212]/g, '-')
    .replace(/(\d{4}-\d{1,2}-\d{1,2})\s*(?:[-\u2013\u2014\u2026]|\.{2,3})\s*(?=\d{4}-\d{1,2}-\d{1,2})/g, '$1 .. ');
}

/** The week (Monday to Sunday) `back` weeks before the one holding `today`; day 0, 1 Jan 1970, was a Thursday. */
function weekRange(today: number, back: number): { from: number; to: number } {
  const monday = today - ((today + 3) % 7) + 7 * back;
  return { from: monday, to: Math.min(monday + 6, today) };
}

interface Tokens {
  limit: number | undefined;
  chart: boolean;
  ranges: Range[];
  dates: { day: number; source: string }[];
}

/** What each word says: rows per page, a chart, ranges and dates (paired up by the caller), or the first problem. */
function readTokens(tokens: string[], today: number): Tokens | { problem: string } {
  const read: Tokens = { limit: undefined, chart: false, ranges: [], dates: [] };
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] ?? '';
    const next = tokens[i + 1];
    const last = lastDays(tokens, i);
    if (token === 'top') {
      if (read.limit !== undefined) return { problem: '`top` appears twice.' };
      if (next === undefined || !/^\d+$/.test(next)) return { problem: '`top` needs a number of rows, e.g. `top 20`.' };
      const n = Number(next);
      if (n < 1 || n > VISITORS_MAX_LIMIT) return { problem: `\`top\` must be between 1 and ${VISITORS_MAX_LIMIT}.` };
      read.limit = n;
      i++;
    } else if ((token === 'this' || token === 'last') && (next === 'month' || next === 'week')) {
      const back = token === 'this' ? 0 : -1;
      read.ranges.push({
        ...(next === 'month' ? monthRange(today, back) : weekRange(today, back)),
        source: `${token} ${next}`,
      });
      i++;
    } else if (monthIndex(token) >= 0) {
      const year = next !== undefined && /^\d{4}$/.test(next) ? Number(next) : undefined;
      read.ranges.push({ ...namedMonth(monthIndex(token), year, today), source: token });
      if (year !== undefined) i++;
    } else if (token === 'chart') {
      read.chart = true;
    } else if (token === 'today') {
      read.ranges.push({ from: today, to: today, source: token });
    } else if (token === 'yesterday') {
      read.ranges.push({ from: today - 1, to: today - 1, source: token });
    } else if (last) {
      const { days, used, source } = last;
      if (days < 1 || days > MAX_RANGE_DAYS)
        return { problem: `${code(source)} is out of range: use 1d to ${MAX_RANGE_DAYS}d.` };
      read.ranges.push({ from: today - days + 1, to: today, source });
      i += used - 1;
    } else if (DATE_LIKE.test(token)) {
      const day = dayNumber(token);
      if (day === undefined) return { problem: `${code(token)} is not a date in the calendar (use YYYY-MM-DD).` };
      read.dates.push({ day, source: token });
    } else if (RANGE_SEPARATORS.has(token) && read.dates.length === 1 && next !== undefined && DATE_LIKE.test(next)) {
      // `2026-11-01 .. 2026-11-08`, `2026-11-01 to 2026-11-08`: the separator is optional.
    } else {
      return { problem: `I don't understand ${code(token)}.` };
    }
  }
  return read;
}

interface LastDays {
  days: number;
  /** Words read. */
  used: number;
  source: string;
}

/** The days ending today that the words from `tokens[i]` name: `30d`, `30 days`, `2 weeks`, after `last` or `past` or not. */
function lastDays(tokens: string[], i: number): LastDays | undefined {
  const lead = tokens[i] === 'last' || tokens[i] === 'past' ? 1 : 0;
  const count = tokens[i + lead] ?? '';
  const preset = PRESET_DAYS.exec(count);
  const per = preset ? undefined : UNIT_DAYS.get(tokens[i + lead + 1] ?? '');
  if (!preset && (per === undefined || !/^\d+$/.test(count))) return undefined;
  const used = lead + (preset ? 1 : 2);
  const days = preset ? Number(preset[1]) : Number(count) * (per ?? 1);
  return { days, used, source: tokens.slice(i, i + used).join(' ') };
}

/** Why a range cannot be asked for, or undefined. Shared by the command and by button values. */
export function rangeProblem(from: number, to: number, today: number, tz: string = UTC): string | undefined {
  if (from > to) return `The start (${dayString(from)}) is after the end (${dayString(to)}).`;
  if (to - from + 1 > MAX_RANGE_DAYS) return `That range is ${to - from + 1} days; the longest is ${MAX_RANGE_DAYS}.`;
  if (from > today) return `That range is entirely in the future (today is ${dayString(today)} in ${tz}).`;
  return undefined;
}

const MAX_BUTTON_VALUE = 2000;

/** Compact JSON for a button value; always far below Slack's 2,000 characters. */
export function encodeQuery(query: ReportQuery): string {
  const { from, to, limit, offset, project, tz } = query;
  return JSON.stringify({ from, to, limit, offset, project, tz });
}

/** Reads a button value back. Anything forged, stale in shape or out of range is refused. */
export function decodeQuery(value: unknown, nowMs: number): ReportQuery | undefined {
  if (typeof value !== 'string' || value.length > MAX_BUTTON_VALUE) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(value);
  } catch {
    return undefined;
  }
  const parsed = ReportQuerySchema.safeParse(json);
  if (!parsed.success) return undefined;
  const { from, to, tz } = parsed.data;
  if (rangeProblem(dayNumber(from) ?? 0, dayNumber(to) ?? 0, todayNumber(nowMs, tz), tz)) return undefined;
  return parsed.data;
}

/** `command` with `query`'s range and project, in the words `/visitors` and `/insights` both read. */
export function rangeCommand(command: string, { from, to, project }: Pick<ReportQuery, 'from' | 'to' | 'project'>) {
  return `${command}${project ? ` --project ${project}` : ''} ${from === to ? from : `${from}..${to}`}`;
}

/** The command that shows this range again (first page; `chart`: its chart), for "try again" messages. */
export function commandFor(query: ReportQuery, chart = false): string {
  const top = query.limit === DEFAULT_ROWS ? '' : ` top ${query.limit}`;
  return `${rangeCommand('/visitors', query)}${chart ? ' chart' : top}`;
}

function invalid(problem: string): ParsedCommand {
  return { kind: 'invalid', problem };
}

/** A word the person typed, shown back as inline code. */
const code = (token: string) => inlineCode(token, 40);
