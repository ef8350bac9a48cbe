import type { PageVisitors } from '../mintlify/schemas.js';
import { headOf, tailOf } from '../slack/graphemes.js';
import { escapeMrkdwn, truncate } from '../slack/mrkdwn.js';
import { formatCount, ratioBar } from './format.js';
import { reportCopy } from './messages.js';

// The report's rows as monospace text: the fallback where Slack refuses the data table (or its limits are passed).

/** Longest path shown in a table, in characters; longer ones keep their start and end around `…`. */
export const PATH_WIDTH = 40;

export interface TableSection {
  text: string;
  rows: number;
}

const FENCE = '```';

/**
 * The rows as a monospace table split into section texts of at most 3,000 characters,
 * each repeating the column header. Lines are built from visible widths, then escaped.
 */
export function tableSections(rows: PageVisitors[], offset: number, sectionText: number): TableSection[] {
  const h = reportCopy.tableHeader;
  const cells = rows.map((row, index) => ({
    rank: String(offset + index + 1),
    path: displayPath(row.path),
    total: formatCount(row.total),
    human: formatCount(row.human),
    ai: formatCount(row.ai),
    bar: ratioBar(row.human, row.ai),
  }));
  const width = (key: 'rank' | 'path' | 'total' | 'human' | 'ai') =>
    Math.max(length(h[key]), ...cells.map((c) => length(c[key])));
  const w = { rank: width('rank'), path: width('path'), total: width('total'), human: width('human'), ai: width('ai') };
  const line = (c: { rank: string; path: string; total: string; human: string; ai: string; bar: string }) =>
    escapeMrkdwn(
      [
        padStart(c.rank, w.rank),
        padEnd(c.path, w.path),
        padStart(c.total, w.total),
        padStart(c.human, w.human),
        padStart(c.ai, w.ai),
        c.bar,
      ].join('  '),
    );
  const header = line({ ...h, bar: h.bar });
  const budget = sectionText - `${FENCE}\n${header}\n\n${FENCE}`.length;

  const sections: TableSection[] = [];
  let current: string[] = [];
  let size = 0;
  const flush = () => {
    if (current.length === 0) return;
    sections.push({ text: `${FENCE}\n${header}\n${current.join('\n')}\n${FENCE}`, rows: current.length });
    current = [];
    size = 0;
  };
  for (const c of cells) {
    const text = truncate(line(c), budget);
    const cost = text.length + (current.length > 0 ? 1 : 0);
    if (size + cost > budget) flush();
    size += text.length + (current.length > 0 ? 1 : 0);
    current.push(text);
  }
  flush();
  return sections;
}

/**
 * A path as one table cell: control characters become spaces, backticks (which could close the code block)
 * become `ˋ`, and long paths keep their beginning and end around an ellipsis.
 */
export function displayPath(path: string, max = PATH_WIDTH): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is replaced
  const clean = path.replace(/[\u0000-\u001f\u007f]/g, ' ').replace(/`/g, 'ˋ');
  if (length(clean) <= max) return clean;
  const head = Math.ceil((max - 1) / 2);
  const tail = max - 1 - head;
  return `${headOf(clean, head)}…${tail > 0 ? tailOf(clean, tail) : ''}`;
}

function length(text: string): number {
  return Array.from(text).length;
}

function padStart(text: string, width: number): string {
  return ' '.repeat(Math.max(0, width - length(text))) + text;
}

function padEnd(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - length(text)));
}
