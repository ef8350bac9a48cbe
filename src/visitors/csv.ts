import type { PageVisitors, VisitorCounts } from '../mintlify/schemas.js';

/** RFC 4180 CSV of per-page visitors, safe to open in a spreadsheet. Pure. */

export const CSV_HEADER = ['path', 'human', 'ai', 'total'] as const;
/** The path cell of the last line, which holds the site totals (deduplicated like every total). */
export const TOTALS_LABEL = '(site total)';
const LINE_END = '\r\n';
/** UTF-8's byte order mark: without it Excel reads a CSV in the machine's legacy code page, garbling non-ASCII text. */
const BOM = '\uFEFF';

/**
 * One CSV cell. Text that a spreadsheet would run as a formula (`=`, `+`, `-`, `@`, tab, CR first)
 * gets a leading `'`; cells with a comma, quote or line break are quoted with quotes doubled.
 */
export function csvCell(value: string | number): string {
  let text = typeof value === 'number' ? (Number.isFinite(value) ? String(value) : '') : value;
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

function csvLine(cells: (string | number)[]): string {
  return cells.map(csvCell).join(',');
}

/** A whole CSV file: the byte order mark, then each line; CRLF line ends, final newline. */
export function csvDocument(lines: (string | number)[][]): string {
  return BOM + lines.map(csvLine).join(LINE_END) + LINE_END;
}

/** Header, one line per page in the given order, then the site totals. */
export function toCsv(rows: PageVisitors[], totals: VisitorCounts): string {
  return csvDocument([
    [...CSV_HEADER],
    ...rows.map((row) => [row.path, row.human, row.ai, row.total]),
    [TOTALS_LABEL, totals.human, totals.ai, totals.total],
  ]);
}
