import type { PageVisitors } from '../mintlify/schemas.js';
import { type DataTableBlock, DataTableBlockSchema } from '../slack/data-blocks.js';
import { formatCount, formatPercent } from './format.js';
import { reportCopy } from './messages.js';
import { displayPath } from './page-path.js';

/** Rows Slack shows per page of the table (it pages and sorts a data table itself; its default is 5). */
export const TABLE_PAGE_SIZE = 10;

/**
 * A page of the report's rows as a `data_table` (docs.slack.dev: data table block): page, visitors, human, AI and AI
 * share. Numbers are `raw_number` cells, so Slack sorts those columns by value while showing the formatted text.
 * Undefined when there are no rows or the table would pass the block's limits (100 rows, 10,000 characters): the
 * text table is the answer then.
 */
export function pagesTable(rows: PageVisitors[], caption: string): DataTableBlock | undefined {
  if (rows.length === 0) return undefined;
  const h = reportCopy.dataTableHeader;
  const text = (t: string) => ({ type: 'raw_text' as const, text: t });
  const number = (value: number, shown = formatCount(value)) => ({ type: 'raw_number' as const, value, text: shown });
  const block = {
    type: 'data_table' as const,
    caption,
    page_size: Math.min(TABLE_PAGE_SIZE, rows.length),
    row_header_column_index: 0,
    rows: [
      [text(h.path), text(h.total), text(h.human), text(h.ai), text(h.aiShare)],
      ...rows.map((row) => [
        text(unmarked(displayPath(row.path)) || '/'),
        number(row.total),
        number(row.human),
        number(row.ai),
        number(aiShare(row), formatPercent(row.ai, row.total)),
      ]),
    ],
  };
  const checked = DataTableBlockSchema.safeParse(block);
  return checked.success ? { ...checked.data, type: 'data_table' } : undefined;
}

/**
 * A raw cell's text with anything that reads as Slack markup (`<!channel>`, `<@U1>`, `<https://…|label>`) between
 * ‹ › instead: a page's path is the service's to write, and a shared report must ping or link nobody.
 */
function unmarked(text: string): string {
  return text.replace(/<([^<>]*)>/g, '‹$1›');
}

/** AI visitors as a percentage of the page's total, to one decimal (what the column sorts by); 0 without visitors. */
function aiShare({ ai, total }: PageVisitors): number {
  return total > 0 ? Math.round(Math.min(1, Math.max(0, ai / total)) * 1000) / 10 : 0;
}
