import type { PageVisitors } from '../../mintlify/schemas.js';
import { type DataVisualizationBlock, DataVisualizationBlockSchema } from '../../slack/data-blocks.js';
import { type Message, section } from '../../slack/message.js';
import { UTC } from '../../zone.js';
import { pagesTable } from '../data-table.js';
import { formatRange } from '../format.js';
import { chartCopy, reportCopy } from '../messages.js';
import type { Granularity } from '../periods.js';
import type { ProjectQuery } from '../requests.js';
import { SERIES } from './render.js';
import type { Trend } from './trend.js';

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
  const table = pagesTable(pages, reportCopy.tableCaption);
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
      axis_config: {
        categories: started.map((s) => s.label),
        x_label: chartCopy.xAxis(trend.granularity, trend.range.tz ?? UTC),
        y_label: chartCopy.yAxis,
      },
      series: SERIES.map(({ name }) => ({
        name,
        data: started.map((s) => ({ label: s.label, value: s.counts[value[name]] })),
      })),
    },
  };
  const checked = DataVisualizationBlockSchema.safeParse(block);
  return checked.success ? checked.data : undefined;
}

/** `14 Nov 2026` for a day or a week (its Monday), `Nov 2026` for a month: short enough for a chart label. */
function bucketLabel(from: string, granularity: Granularity): string {
  const day = formatRange(from, from);
  return granularity === 'month' ? day.split(' ').slice(1).join(' ') : day;
}
