/**
 * The blocks Slack added for agents and data (Block Kit reference, 2025–2026): `context_actions` with
 * `feedback_buttons`, `data_visualization` (pie, bar, area, line), `data_table` and `table`, with their documented
 * fields and limits. Each problem is reported through `fail` as Slack's `invalid_blocks` lines are.
 */
export const DATA_BLOCK_LIMITS = {
  contextActionsElements: 5,
  feedbackText: 75,
  feedbackValue: 2000,
  accessibilityLabel: 75,
  chartTitle: 50,
  chartSeries: 6,
  chartPoints: 20,
  chartLabel: 20,
  axisTitle: 50,
  pieSegments: 6,
  dataTableRows: 101,
  dataTableColumns: 20,
  dataTablePageSize: 100,
  dataTableCharacters: 10_000,
  tableRows: 100,
  tableCells: 20,
  tableColumnSettings: 20,
} as const;

/** The block types this module checks: the ones a test may make the stand-in refuse, as older workspaces do. */
export const DATA_BLOCK_TYPES = ['context_actions', 'data_visualization', 'data_table', 'table'] as const;

type Json = Record<string, unknown>;
export type Fail = (pointer: string, what: string) => void;
const L = DATA_BLOCK_LIMITS;

export function checkDataBlock(block: Json, at: string, fail: Fail): void {
  const checks: Record<(typeof DATA_BLOCK_TYPES)[number], (block: Json, at: string, fail: Fail) => void> = {
    context_actions: contextActions,
    data_visualization: dataVisualization,
    data_table: dataTable,
    table,
  };
  checks[block.type as keyof typeof checks]?.(block, at, fail);
}

function contextActions(block: Json, at: string, fail: Fail): void {
  const elements = list(block.elements, 1, L.contextActionsElements, `${at}/elements`, fail);
  for (const [i, e] of elements.entries()) {
    const where = `${at}/elements/${i}`;
    if (e.type === 'icon_button') continue;
    if (e.type !== 'feedback_buttons') {
      fail(`${where}/type`, 'must be feedback_buttons or icon_button');
      continue;
    }
    if (e.action_id !== undefined) text(e.action_id, 1, 255, `${where}/action_id`, fail);
    for (const side of ['positive_button', 'negative_button'] as const)
      feedbackButton(e[side], `${where}/${side}`, fail);
  }
}

function feedbackButton(value: unknown, at: string, fail: Fail): void {
  const button = object(value, at, fail);
  if (!button) return;
  const label = object(button.text, `${at}/text`, fail);
  if (label && label.type !== 'plain_text') fail(`${at}/text/type`, 'must be plain_text');
  if (label) text(label.text, 1, L.feedbackText, `${at}/text/text`, fail);
  text(button.value, 1, L.feedbackValue, `${at}/value`, fail);
  if (button.accessibility_label !== undefined)
    text(button.accessibility_label, 1, L.accessibilityLabel, `${at}/accessibility_label`, fail);
}

function dataVisualization(block: Json, at: string, fail: Fail): void {
  text(block.title, 1, L.chartTitle, `${at}/title`, fail);
  const chart = object(block.chart, `${at}/chart`, fail);
  if (!chart) return;
  if (chart.type === 'pie') {
    for (const [i, s] of list(chart.segments, 1, L.pieSegments, `${at}/chart/segments`, fail).entries()) {
      text(s.label, 1, L.chartLabel, `${at}/chart/segments/${i}/label`, fail);
      if (typeof s.value !== 'number' || !(s.value > 0)) fail(`${at}/chart/segments/${i}/value`, 'must be above 0');
    }
    return;
  }
  if (chart.type !== 'bar' && chart.type !== 'area' && chart.type !== 'line') {
    fail(`${at}/chart/type`, 'must be one of pie, bar, area, line');
    return;
  }
  const axis = object(chart.axis_config, `${at}/chart/axis_config`, fail);
  const categories = axis && Array.isArray(axis.categories) ? axis.categories : [];
  if (axis && !Array.isArray(axis.categories)) fail(`${at}/chart/axis_config/categories`, 'must be an array');
  for (const [i, c] of categories.entries()) text(c, 1, L.chartLabel, `${at}/chart/axis_config/categories/${i}`, fail);
  for (const title of ['x_label', 'y_label'] as const)
    if (axis?.[title] !== undefined) text(axis[title], 1, L.axisTitle, `${at}/chart/axis_config/${title}`, fail);
  const names = new Set<string>();
  for (const [i, s] of list(chart.series, 1, L.chartSeries, `${at}/chart/series`, fail).entries()) {
    const where = `${at}/chart/series/${i}`;
    text(s.name, 1, L.chartLabel, `${where}/name`, fail);
    if (names.has(String(s.name))) fail(`${where}/name`, 'series names must be unique');
    names.add(String(s.name));
    for (const [j, p] of list(s.data, 1, L.chartPoints, `${where}/data`, fail).entries()) {
      text(p.label, 1, L.chartLabel, `${where}/data/${j}/label`, fail);
      if (!categories.includes(p.label)) fail(`${where}/data/${j}/label`, 'must be one of axis_config.categories');
      if (typeof p.value !== 'number' || !Number.isFinite(p.value))
        fail(`${where}/data/${j}/value`, 'must be a number');
    }
  }
}

function dataTable(block: Json, at: string, fail: Fail): void {
  text(block.caption, 1, Number.POSITIVE_INFINITY, `${at}/caption`, fail);
  if (block.page_size !== undefined && !integerIn(block.page_size, 1, L.dataTablePageSize))
    fail(`${at}/page_size`, `must be an integer from 1 to ${L.dataTablePageSize}`);
  const rows = rowsOf(block.rows, 2, L.dataTableRows, L.dataTableColumns, `${at}/rows`, fail);
  if (block.row_header_column_index !== undefined && !integerIn(block.row_header_column_index, 0, width(rows) - 1))
    fail(`${at}/row_header_column_index`, 'must name a column');
  let characters = 0;
  for (const [i, row] of rows.entries()) {
    for (const [j, cell] of row.entries()) {
      const where = `${at}/rows/${i}/${j}`;
      if (cell.type === 'rich_text') {
        if (i === 0) fail(`${where}/type`, 'header cells cannot be rich_text');
        continue;
      }
      if (cell.type === 'raw_number') {
        if (typeof cell.value !== 'number' || !Number.isFinite(cell.value)) fail(`${where}/value`, 'must be a number');
        // The text Slack shows for the number (its value is what the column sorts by): required, at least 1 character.
        text(cell.text, 1, Number.POSITIVE_INFINITY, `${where}/text`, fail);
      } else if (cell.type === 'raw_text') text(cell.text, 1, Number.POSITIVE_INFINITY, `${where}/text`, fail);
      else fail(`${where}/type`, 'must be raw_text, raw_number or rich_text');
      characters += String(cell.text ?? cell.value ?? '').length;
    }
  }
  if (characters > L.dataTableCharacters)
    fail(`${at}/rows`, `cells must hold no more than ${L.dataTableCharacters} characters in all`);
}

function table(block: Json, at: string, fail: Fail): void {
  const rows = rowsOf(block.rows, 1, L.tableRows, L.tableCells, `${at}/rows`, fail);
  for (const [i, row] of rows.entries())
    for (const [j, cell] of row.entries())
      if (cell.type !== 'raw_text' && cell.type !== 'rich_text')
        fail(`${at}/rows/${i}/${j}/type`, 'must be raw_text or rich_text');
  if (block.column_settings !== undefined)
    list(block.column_settings, 0, L.tableColumnSettings, `${at}/column_settings`, fail);
}

function rowsOf(value: unknown, min: number, max: number, columns: number, at: string, fail: Fail): Json[][] {
  if (!Array.isArray(value)) {
    fail(at, 'must be an array');
    return [];
  }
  if (value.length < min) fail(at, `must have at least ${min} items`);
  if (value.length > max) fail(at, `no more than ${max} items allowed`);
  const rows = value.filter((row, i) => {
    if (Array.isArray(row)) return true;
    fail(`${at}/${i}`, 'must be an array of cells');
    return false;
  }) as Json[][];
  for (const [i, row] of rows.entries()) {
    if (row.length < 1 || row.length > columns) fail(`${at}/${i}`, `must have from 1 to ${columns} cells`);
    if (row.length !== rows[0]?.length) fail(`${at}/${i}`, 'all rows must have the same number of cells');
  }
  return rows;
}

const width = (rows: Json[][]) => rows[0]?.length ?? 0;

function integerIn(value: unknown, min: number, max: number): boolean {
  return Number.isInteger(value) && (value as number) >= min && (value as number) <= max;
}

function list(value: unknown, min: number, max: number, at: string, fail: Fail): Json[] {
  if (!Array.isArray(value)) {
    fail(at, 'must be an array');
    return [];
  }
  if (value.length < min) fail(at, `must have at least ${min} items`);
  if (value.length > max) fail(at, `no more than ${max} items allowed`);
  return value.map((item, i) => object(item, `${at}/${i}`, fail) ?? {});
}

function object(value: unknown, at: string, fail: Fail): Json | undefined {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Json;
  fail(at, 'must be an object');
  return undefined;
}

function text(value: unknown, min: number, max: number, at: string, fail: Fail): void {
  if (typeof value !== 'string') fail(at, 'must be a string');
  else if (value.length < min) fail(at, `must be at least ${min} characters`);
  else if (value.length > max) fail(at, `must be less than ${max + 1} characters`);
}
