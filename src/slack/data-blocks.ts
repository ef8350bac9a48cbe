import type { types } from '@slack/bolt';
import { z } from 'zod';

// Block Kit's charts and tables (docs.slack.dev: data visualization block, data table block), which
// @slack/types does not all know yet: their schemas carry Slack's documented limits, so a block that would be
// refused with `invalid_blocks` is caught before it is sent, and the caller shows its fallback instead.

/** Slack's documented limits of the chart and data table blocks. */
export const DATA_LIMITS = {
  chartTitle: 50,
  series: 6,
  points: 20,
  label: 20,
  axisTitle: 50,
  tableRows: 100,
  tableColumns: 20,
  pageSize: 100,
  tableCharacters: 10_000,
} as const;

const L = DATA_LIMITS;
const label = z.string().min(1).max(L.label);

const DataSeriesSchema = z.object({
  name: label,
  data: z
    .array(z.object({ label, value: z.number().finite() }))
    .min(1)
    .max(L.points),
});

const SeriesChartSchema = z
  .object({
    type: z.enum(['line', 'bar', 'area']),
    series: z.array(DataSeriesSchema).min(1).max(L.series),
    axis_config: z.object({
      categories: z.array(label),
      x_label: z.string().min(1).max(L.axisTitle).optional(),
      y_label: z.string().min(1).max(L.axisTitle).optional(),
    }),
  })
  .refine((chart) => chart.series.every((s) => s.data.every((p) => chart.axis_config.categories.includes(p.label))), {
    message: 'every point is labelled with one of the axis categories',
  });

export const DataVisualizationBlockSchema = z.object({
  type: z.literal('data_visualization'),
  block_id: z.string().max(255).optional(),
  title: z.string().min(1).max(L.chartTitle),
  chart: SeriesChartSchema,
});
export type DataVisualizationBlock = z.infer<typeof DataVisualizationBlockSchema>;

const RawTextSchema = z.object({ type: z.literal('raw_text'), text: z.string().min(1) });
const RawNumberSchema = z.object({
  type: z.literal('raw_number'),
  value: z.number().finite(),
  text: z.string().min(1),
});

export const DataTableBlockSchema = z
  .object({
    type: z.literal('data_table'),
    block_id: z.string().max(255).optional(),
    caption: z.string().min(1),
    page_size: z.number().int().min(1).max(L.pageSize).optional(),
    /** The column that names each row (for screen readers); Slack's default is 0. */
    row_header_column_index: z
      .number()
      .int()
      .min(0)
      .max(L.tableColumns - 1)
      .optional(),
    rows: z
      .array(
        z
          .array(z.union([RawTextSchema, RawNumberSchema]))
          .min(1)
          .max(L.tableColumns),
      )
      .min(2)
      .max(L.tableRows + 1),
  })
  .refine((table) => table.rows.every((row) => row.length === table.rows[0]?.length), {
    message: 'every row has as many cells as the header',
  })
  .refine((table) => (table.row_header_column_index ?? 0) < (table.rows[0]?.length ?? 0), {
    message: 'the row header is one of the columns',
  })
  .refine((table) => characters(table.rows) <= L.tableCharacters, {
    message: `the cells hold at most ${L.tableCharacters} characters`,
  });
export type DataTableBlock = z.infer<typeof DataTableBlockSchema> & types.DataTableBlock;

function characters(rows: { text: string }[][]): number {
  return rows.reduce((sum, row) => sum + row.reduce((n, cell) => n + cell.text.length, 0), 0);
}

/** A block of a message: Block Kit's known blocks and the chart `@slack/types` lacks. */
export type MessageBlock = types.KnownBlock | DataVisualizationBlock;
