import type { PageVisitors, VisitorCounts } from '../mintlify/schemas.js';

/** RFC 4180 CSV of per-page visitors, safe to open in a spreadsheet. Pure. */

export const CSV_HEADER = ['path', 'human', 'ai', 'total'] as const;
/** The path cell of the last line, which holds the site totals (deduplicated like every total). */
export const TOTALS_LABEL = '(site total)';
const LINE_END = '\r\n';

/**
 * One CSV cell. Text that a spreadsheet would run as a formula (`=`, `+`, `-`, `@`, tab, CR first)
 * gets a leading `'`; cells with a comma, quote or line break are quoted with quotes doubled.
 */
export function csvCell(value: string | number): string {
  let text = typeof value === 'number' ? (Number.isFinite(value) ? String(value) : '') : value;
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvLine(cells: (string | number)[]): string {
  return cells.map(csvCell).join(',');
}

/** Header, one line per page in the given order, then the site totals; CRLF line ends, final newline. */
export function toCsv(rows: PageVisitors[], totals: VisitorCounts): string {
  const lines = [
    csvLine([...CSV_HEADER]),
    ...rows.map((row) => csvLine([row.path, row.human, row.ai, row.total])),
    csvLine([TOTALS_LABEL, totals.human, totals.ai, totals.total]),
  ];
  return lines.join(LINE_END) + LINE_END;
}
