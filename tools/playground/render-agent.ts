import { escapeHtml } from './html.js';

/**
 * Slack's agent and data blocks → HTML for the playground page: a stream's `markdown`, the `plan` and its
 * `task_card`s (a job's plan card), `context_actions` with feedback buttons, `data_table`/`table` and the
 * `data_visualization` chart. Plain but faithful: every title, status, cell and point the app sent is shown.
 */

type Obj = Record<string, unknown>;
/** Renders nested blocks (a task's `details`, a rich_text block) with the main renderer. */
export type Nested = (blocks: unknown) => string;

const STATUS_ICONS: Record<string, string> = { pending: '○', in_progress: '◔', complete: '✓', error: '✕' };

function taskCard(task: Obj, nested: Nested): string {
  const status = String(task.status ?? 'pending');
  const icon = STATUS_ICONS[status] ?? '○';
  const details = task.details ? `<div class="task-details">${nested([task.details])}</div>` : '';
  const output = task.output ? `<div class="task-output">${nested([task.output])}</div>` : '';
  return (
    `<li class="task ${escapeHtml(status.replace(/_/g, '-'))}" data-status="${escapeHtml(status)}">` +
    `<span class="task-icon" aria-label="${escapeHtml(status)}">${icon}</span>` +
    `<div class="task-body"><div class="task-title">${escapeHtml(String(task.title ?? ''))}</div>${details}${output}</div></li>`
  );
}

function plan(b: Obj, nested: Nested): string {
  const tasks = Array.isArray(b.tasks) ? (b.tasks as Obj[]) : [];
  const done = tasks.filter((t) => t.status === 'complete').length;
  return (
    `<div class="block plan"><div class="plan-head"><span class="plan-title">${escapeHtml(String(b.title ?? ''))}</span>` +
    `<span class="plan-count">${done}/${tasks.length}</span></div>` +
    `<ul class="tasks">${tasks.map((t) => taskCard(t, nested)).join('')}</ul></div>`
  );
}

/** `feedback_buttons` report their click like a button, with the value of the side clicked. */
function feedbackButtons(el: Obj, blockId: string | undefined): string {
  const side = (key: string) => {
    const b = (el[key] ?? {}) as Obj;
    const text = String((b.text as Obj | undefined)?.text ?? '');
    const label = typeof b.accessibility_label === 'string' ? ` aria-label="${escapeHtml(b.accessibility_label)}"` : '';
    return (
      `<button type="button" class="feedback" data-action-type="feedback_buttons" data-action-id="${escapeHtml(String(el.action_id ?? ''))}"` +
      `${blockId ? ` data-block-id="${escapeHtml(blockId)}"` : ''} data-value="${escapeHtml(String(b.value ?? ''))}"${label}>${escapeHtml(text)}</button>`
    );
  };
  return side('positive_button') + side('negative_button');
}

function contextActions(b: Obj): string {
  const blockId = typeof b.block_id === 'string' ? b.block_id : undefined;
  const elements = Array.isArray(b.elements) ? (b.elements as Obj[]) : [];
  const html = elements.map((el) =>
    el.type === 'feedback_buttons'
      ? feedbackButtons(el, blockId)
      : `<span class="unsupported">[${escapeHtml(String(el.type))}]</span>`,
  );
  return `<div class="block context-actions">${html.join('')}</div>`;
}

/** A cell's text as Slack shows it; a number keeps its value, which is what its column sorts by. */
function cell(c: Obj, tag: 'th' | 'td', sortBy?: number): string {
  const sort = sortBy === undefined ? '' : ` data-sort="${sortBy}" title="Sort"`;
  if (tag === 'th') return `<th${sort}>${escapeHtml(String(c.text ?? ''))}</th>`;
  const number = c.type === 'raw_number' ? ` class="number" data-value="${escapeHtml(String(c.value))}"` : '';
  return `<td${number}>${escapeHtml(String(c.text ?? c.value ?? ''))}</td>`;
}

/** A `table` block's rows as an HTML table, its first row the header (Slack does not sort or page these). */
function table(b: Obj): string {
  const rows = Array.isArray(b.rows) ? (b.rows as Obj[][]) : [];
  const html = rows.map((row, i) => `<tr>${row.map((c) => cell(c, i === 0 ? 'th' : 'td')).join('')}</tr>`);
  return `<table class="block data-table">${html.join('')}</table>`;
}

/** Slack's default rows per page of a data table. */
const DATA_TABLE_PAGE_SIZE = 5;

/**
 * A `data_table` as Slack shows it: its caption, the header (click to sort, as in Slack), `page_size` rows at a time
 * (Slack's default 5) with a pager when there are more; every row is in the page, the others hidden (app.js pages and
 * sorts them).
 */
function dataTable(b: Obj): string {
  const [header = [], ...rows] = Array.isArray(b.rows) ? (b.rows as Obj[][]) : [];
  const size = typeof b.page_size === 'number' && b.page_size > 0 ? b.page_size : DATA_TABLE_PAGE_SIZE;
  const caption = typeof b.caption === 'string' ? `<caption>${escapeHtml(b.caption)}</caption>` : '';
  const head = `<thead><tr>${header.map((c, j) => cell(c, 'th', j)).join('')}</tr></thead>`;
  const body = rows.map((row, i) => `<tr${i >= size ? ' hidden' : ''}>${row.map((c) => cell(c, 'td')).join('')}</tr>`);
  const pages = Math.ceil(rows.length / size);
  const pager =
    pages > 1
      ? `<tfoot><tr><td colspan="${header.length}"><button type="button" data-table-page="-1">‹</button>` +
        ` <span class="table-page">1 / ${pages}</span> <button type="button" data-table-page="1">›</button></td></tr></tfoot>`
      : '';
  return (
    `<table class="block data-table" data-page-size="${size}" data-page="0">${caption}${head}` +
    `<tbody>${body.join('')}</tbody>${pager}</table>`
  );
}

const CHART_W = 480;
const CHART_H = 140;

/** A series chart as an SVG: one polyline per series over the axis categories, with its legend. */
function chart(b: Obj): string {
  const spec = (b.chart ?? {}) as Obj;
  const series = (Array.isArray(spec.series) ? spec.series : []) as Obj[];
  const categories = (((spec.axis_config as Obj | undefined)?.categories as unknown[]) ?? []).map(String);
  const values = series.flatMap((s) => ((s.data as Obj[] | undefined) ?? []).map((p) => Number(p.value)));
  const max = Math.max(1, ...values.filter(Number.isFinite));
  const x = (label: string) =>
    categories.length > 1 ? (categories.indexOf(label) / (categories.length - 1)) * CHART_W : 0;
  const y = (value: number) => CHART_H - (value / max) * CHART_H;
  const lines = series.map((s, i) => {
    const points = ((s.data as Obj[] | undefined) ?? []).map(
      (p) => `${x(String(p.label)).toFixed(1)},${y(Number(p.value)).toFixed(1)}`,
    );
    return `<polyline class="series-${i}" points="${points.join(' ')}"/>`;
  });
  const legend = series.map((s, i) => `<li class="series-${i}">${escapeHtml(String(s.name ?? ''))}</li>`);
  const range = categories.length ? `${categories[0]} – ${categories.at(-1)}` : '';
  return (
    `<figure class="block chart"><figcaption>${escapeHtml(String(b.title ?? ''))}</figcaption>` +
    `<svg viewBox="-4 -4 ${CHART_W + 8} ${CHART_H + 8}" role="img" aria-label="${escapeHtml(String(b.title ?? ''))}">${lines.join('')}</svg>` +
    `<div class="axis">${escapeHtml(range)} · max ${max}</div><ul class="legend">${legend.join('')}</ul></figure>`
  );
}

/** The block as HTML, or undefined when it is not one of these. */
export function agentBlock(b: Obj, nested: Nested): string | undefined {
  switch (b.type) {
    case 'markdown': {
      // Drawn as mrkdwn, which the app's streams are written from: Markdown's backslash escapes show what they keep.
      const text = String(b.text ?? '').replace(/\\([!-/:-@[-`{-~])/g, '$1');
      return `<div class="block markdown">${nested([{ type: 'section', text: { type: 'mrkdwn', text } }])}</div>`;
    }
    case 'plan':
      return plan(b, nested);
    case 'task_card':
      return `<ul class="block tasks">${taskCard(b, nested)}</ul>`;
    case 'context_actions':
      return contextActions(b);
    case 'data_table':
      return dataTable(b);
    case 'table':
      return table(b);
    case 'data_visualization':
      return chart(b);
    default:
      return undefined;
  }
}
