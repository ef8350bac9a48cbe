import type { PageVisitors } from '../mintlify/schemas.js';
import { escapeMrkdwn, truncate } from '../slack/mrkdwn.js';
import { formatCount, ratioBar } from './format.js';
import { reportCopy } from './messages.js';
import { charCount, displayPath } from './page-path.js';

// The report's rows as monospace text: the fallback where Slack refuses the data table (or its limits are passed).

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
    Math.max(charCount(h[key]), ...cells.map((c) => charCount(c[key])));
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

function padStart(text: string, width: number): string {
  return ' '.repeat(Math.max(0, width - charCount(text))) + text;
}

function padEnd(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - charCount(text)));
}
