import type { PageVisitors } from '../../mintlify/schemas.js';
import {
  type DataTableBlock,
  DataTableBlockSchema,
  type DataVisualizationBlock,
  DataVisualizationBlockSchema,
} from '../../slack/data-blocks.js';
import { type Message, section } from '../../slack/message.js';
import { displayPath } from '../blocks.js';
import { formatCount, formatRange } from '../format.js';
import { chartCopy, reportCopy } from '../messages.js';
import type { Granularity } from '../periods.js';
import type { ProjectQuery } from '../requests.js';
import { SERIES } from './render.js';
import type { Trend } from './trend.js';

/** Rows the table shows per page of its own (Slack pages and sorts a data table itself). */
const TABLE_PAGE_SIZE = 10;

/**
 * The chart reply drawn by Slack: the trend as a line chart (total, human, AI), the range's top pages as a sortable
 * data table, and the button that shares the chart. Undefined when the blocks would break Slack's limits (more
 * than 20 points, a table too large): the PNG is the answer then.
 */
export function chartReply(
  query: ProjectQuery,
  trend: Trend,
  pages: PageVisitors[],
  share: Message['blocks'],
): Message | undefined {
  const chart = trendChart(trend);
  if (!chart) return undefined;
  const table = pagesTable(pages, query.offset);
  const text = chartCopy.inReply(query);
  return { text, blocks: [section(text), chart, ...(table ? [table] : []), ...(share ?? [])] };
}

/** The trend's started buckets as one line per series, or undefined past Slack's limits. */
export function trendChart(trend: Trend): DataVisualizationBlock | undefined {
  const started = trend.points.flatMap((p) =>
    p.counts ? [{ label: bucketLabel(p.bucket.from, trend.granularity), counts: p.counts }] : [],
  );
  const value = { Total: 'total', Human: 'human', AI: 'ai' } as const;
  const block = {
    type: 'data_visualization' as const,
    title: chartCopy.blockTitle(trend.granularity),
    chart: {
      type: 'line' as const,
      axis_config: { categories: started.map((s) => s.label), y_label: chartCopy.yAxis },
      series: SERIES.map(({ name }) => ({
        name,
        data: started.map((s) => ({ label: s.label, value: s.counts[value[name]] })),
      })),
    },
  };
  const checked = DataVisualizationBlockSchema.safeParse(block);
  return checked.success ? checked.data : undefined;
}

/** A page of rows as a data table (rank, page, total, human, AI), or undefined when there are none or too many. */
export function pagesTable(rows: PageVisitors[], offset: number): DataTableBlock | undefined {
  if (rows.length === 0) return undefined;
  const h = reportCopy.tableHeader;
  const text = (t: string) => ({ type: 'raw_text' as const, text: t });
  const number = (n: number) => ({ type: 'raw_number' as const, value: n, text: formatCount(n) });
  const block = {
    type: 'data_table' as const,
    caption: chartCopy.tableCaption,
    page_size: Math.min(TABLE_PAGE_SIZE, rows.length),
    row_header_column_index: 1,
    rows: [
      [text(h.rank), text(h.path), text(h.total), text(h.human), text(h.ai)],
      ...rows.map((row, i) => [
        number(offset + i + 1),
        text(displayPath(row.path) || '/'),
        number(row.total),
        number(row.human),
        number(row.ai),
      ]),
    ],
  };
  const checked = DataTableBlockSchema.safeParse(block);
  return checked.success ? { ...checked.data, type: 'data_table' } : undefined;
}

/** `14 Nov 2026` for a day or a week (its Monday), `Nov 2026` for a month: short enough for a chart label. */
function bucketLabel(from: string, granularity: Granularity): string {
  const day = formatRange(from, from);
  return granularity === 'month' ? day.split(' ').slice(1).join(' ') : day;
}
