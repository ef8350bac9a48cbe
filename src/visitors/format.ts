import { UTC, wallClock, zoneName } from '../zone.js';
import { DAY_MS, dayNumber } from './days.js';

/** Pure text formatting for the report: numbers (en-US), dates (UTC), the human/AI bar. */

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'] as const;
const INTEGER = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const PERCENT = new Intl.NumberFormat('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 });
/** Past this, thousands separators would make a cell absurdly wide. */
const HUGE = 1e15;

/** A wait someone named (a Retry-After): `13 seconds` under two minutes, `30 minutes` from there. */
export function waitWords(ms: number): string {
  const seconds = Math.max(1, Math.ceil(ms / 1000));
  if (seconds >= 120) return `${Math.ceil(seconds / 60)} minutes`;
  return seconds === 1 ? '1 second' : `${seconds} seconds`;
}

/** `12,345`; absurd values stay short (`1.23e+21`) so no cell can blow a Block Kit limit. */
export function formatCount(n: number): string {
  if (!Number.isFinite(n)) return '—';
  if (Math.abs(n) >= HUGE) return n.toExponential(2);
  return INTEGER.format(n);
}

/** `23.4%` of `whole`, or `—` when there is nothing to divide by. */
export function formatPercent(part: number, whole: number): string {
  if (!Number.isFinite(part) || !Number.isFinite(whole) || whole <= 0) return '—';
  return `${PERCENT.format(Math.min(100, Math.max(0, (part / whole) * 100)))}%`;
}

interface DayParts {
  day: number;
  month: string;
  year: number;
}

function parts(isoDay: string): DayParts {
  const date = new Date((dayNumber(isoDay) ?? 0) * DAY_MS);
  return { day: date.getUTCDate(), month: MONTHS[date.getUTCMonth()] ?? '', year: date.getUTCFullYear() };
}

/** `21 Nov 2026`, `15–21 Nov 2026`, `28 Nov – 3 Dec 2026`, `28 Dec 2026 – 3 Jan 2027` (inclusive days). */
export function formatRange(from: string, to: string): string {
  const a = parts(from);
  const b = parts(to);
  if (from === to) return `${a.day} ${a.month} ${a.year}`;
  if (a.year !== b.year) return `${a.day} ${a.month} ${a.year} – ${b.day} ${b.month} ${b.year}`;
  if (a.month !== b.month) return `${a.day} ${a.month} – ${b.day} ${b.month} ${b.year}`;
  return `${a.day}–${b.day} ${b.month} ${b.year}`;
}

/** `22 Nov 2026 23:05 UTC`, `23 Nov 2026 12:05 GMT+13`: the local time in `tz` with the zone's short name. */
export function formatTime(ms: number, tz: string = UTC): string {
  const date = new Date(wallClock(ms, tz));
  const iso = date.toISOString();
  const name = zoneName(ms, tz);
  return `${date.getUTCDate()} ${MONTHS[date.getUTCMonth()]} ${date.getUTCFullYear()} ${iso.slice(11, 16)} ${name}`;
}

export const BAR_WIDTH = 10;
const HUMAN_CELL = '█';
const AI_CELL = '░';

/**
 * Human vs AI as a text bar: `█` cells for the human share of (human + AI), `░` for the AI share.
 * Any non-zero side gets at least one cell, so a tiny share never disappears.
 */
export function ratioBar(human: number, ai: number, width = BAR_WIDTH): string {
  const h = Number.isFinite(human) ? Math.max(0, human) : 0;
  const a = Number.isFinite(ai) ? Math.max(0, ai) : 0;
  if (h + a === 0) return ' '.repeat(width);
  let filled = Math.round((h / (h + a)) * width);
  if (h > 0 && filled === 0) filled = 1;
  if (a > 0 && filled === width) filled = width - 1;
  return HUMAN_CELL.repeat(filled) + AI_CELL.repeat(width - filled);
}
