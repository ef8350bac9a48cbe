import type { types } from '@slack/bolt';
import type { PageVisitors, VisitorCounts, VisitorsResponse } from '../mintlify/schemas.js';
import { headOf, tailOf } from '../slack/graphemes.js';
import { type Message, section } from '../slack/message.js';
import { escapeMrkdwn, truncate } from '../slack/mrkdwn.js';
import { changes } from './change.js';
import { encodeQuery, MAX_OFFSET, type ReportQuery } from './date-range.js';
import { formatCount, formatPercent, formatTime, ratioBar } from './format.js';
import { BUTTON_LABELS, chartCopy, reportCopy } from './messages.js';
import { previousPeriod } from './periods.js';
import { UTC } from './zone.js';

/** Block Kit limits the report must respect under every input. */
export const LIMITS = {
  blocks: 50,
  sectionText: 3000,
  fields: 10,
  headerText: 150,
  buttonValue: 2000,
  buttonText: 75,
  contextElements: 10,
} as const;

/** Longest path shown in the table, in characters; longer ones keep their start and end around `…`. */
export const PATH_WIDTH = 40;

export const ACTION_IDS = {
  prev: 'visitors.prev',
  next: 'visitors.next',
  share: 'visitors.share',
  csv: 'visitors.csv',
  chart: 'visitors.chart',
  shareChart: 'visitors.share_chart',
} as const;

/** One fetched page of the report. `fetchedAt` is when the service answered (earlier when cached). */
export interface VisitorsPage {
  query: ReportQuery;
  response: VisitorsResponse;
  fetchedAt: number;
}

export interface ReportOptions {
  /** Set for the copy posted in the channel: says who shared it and has no buttons. */
  sharedBy?: string;
  /** The previous period's totals: each number then shows its change. */
  previous?: VisitorCounts | undefined;
  /** Where the previous period was cut, when the range is still running (the same hours, like with like). */
  previousUntil?: number | undefined;
}

/** "Changes compare with …", with where the previous period was cut (`28 Sep 2026 10:00 GMT+13`) if it was. */
function comparedWith(query: ReportQuery, until: number | undefined): string {
  const cut = until === undefined ? undefined : formatTime(until, query.tz ?? UTC);
  return reportCopy.comparedWith(previousPeriod(query), cut);
}

/** The report as Block Kit: header, site totals, the page's rows as a monospace table, footer, buttons. */
export function buildReport(page: VisitorsPage, options: ReportOptions = {}): Message {
  const { query, response, fetchedAt } = page;
  const { totals, visitors } = response;
  const tz = query.tz ?? UTC;
  const shared = options.sharedBy !== undefined;
  const change = changes(totals, options.previous);
  const withChange = (value: string, delta: string | undefined) => (delta ? `${value}  ${delta}` : value);

  const head: types.KnownBlock[] = [
    {
      type: 'header',
      text: { type: 'plain_text', text: truncate(reportCopy.header(query), LIMITS.headerText) },
    },
    {
      type: 'section',
      fields: [
        field(reportCopy.total, withChange(formatCount(totals.total), change?.total)),
        field(reportCopy.human, withChange(formatCount(totals.human), change?.human)),
        field(reportCopy.ai, withChange(formatCount(totals.ai), change?.ai)),
        field(reportCopy.aiShare, withChange(formatPercent(totals.ai, totals.total), change?.aiShare)),
      ],
    },
    context([reportCopy.dedupNote, ...(change ? [comparedWith(query, options.previousUntil)] : [])]),
    { type: 'divider' },
  ];

  const first = query.offset + 1;
  const footerParts = [
    visitors.length > 0 ? reportCopy.rows(first, query.offset + visitors.length) : reportCopy.noRows,
    reportCopy.zone(tz),
    reportCopy.fetched(formatTime(fetchedAt, tz)),
    ...(visitors.length > 0 ? [reportCopy.legend] : []),
  ];
  const tail: types.KnownBlock[] = [context([footerParts.join(' · ')])];
  if (shared) tail.push(context([reportCopy.sharedBy(options.sharedBy ?? '')]));
  else tail.push(actions(page));

  let body: types.KnownBlock[];
  if (visitors.length === 0) {
    body = [section(query.offset > 0 ? reportCopy.pastTheEnd : reportCopy.noVisitors)];
  } else {
    const room = LIMITS.blocks - head.length - tail.length;
    const texts = tableSections(visitors, query.offset);
    if (texts.length <= room) {
      body = texts.map((t) => section(t.text));
    } else {
      const kept = texts.slice(0, room - 1);
      const shownRows = kept.reduce((n, t) => n + t.rows, 0);
      body = [...kept.map((t) => section(t.text)), section(reportCopy.moreRowsHidden(visitors.length - shownRows))];
    }
  }

  return {
    text: reportCopy.fallback(query, totals.total, totals.human, totals.ai),
    blocks: [...head, ...body, ...tail],
  };
}

/** The private note after a chart went to the person's DM: where it is, and a button to share it here. */
export function chartSentMessage(query: ReportQuery): Message {
  const text = chartCopy.sentToDm(query);
  return { text, blocks: [section(text), shareChartButton(query)] };
}

/** The button that shares a chart of `query`'s range in the conversation. */
export function shareChartButton(query: ReportQuery): types.ActionsBlock {
  return {
    type: 'actions',
    elements: [button(ACTION_IDS.shareChart, BUTTON_LABELS.shareChart, { ...query, offset: 0 })],
  };
}

function field(label: string, value: string): types.MrkdwnElement {
  return { type: 'mrkdwn', text: `*${label}*\n${value}` };
}

function context(texts: string[]): types.ContextBlock {
  return { type: 'context', elements: texts.map((text) => ({ type: 'mrkdwn', text })) };
}

function actions(page: VisitorsPage): types.ActionsBlock {
  const { query, response } = page;
  const elements: types.Button[] = [];
  if (query.offset > 0) {
    elements.push(
      button(ACTION_IDS.prev, BUTTON_LABELS.prev, { ...query, offset: Math.max(0, query.offset - query.limit) }),
    );
  }
  if (response.hasMore && query.offset + query.limit <= MAX_OFFSET) {
    elements.push(button(ACTION_IDS.next, BUTTON_LABELS.next, { ...query, offset: query.offset + query.limit }));
  }
  elements.push(button(ACTION_IDS.share, BUTTON_LABELS.share, query, 'primary'));
  elements.push(button(ACTION_IDS.csv, BUTTON_LABELS.csv, { ...query, offset: 0 }));
  elements.push(button(ACTION_IDS.chart, BUTTON_LABELS.chart, { ...query, offset: 0 }));
  return { type: 'actions', elements };
}

function button(actionId: string, label: string, query: ReportQuery, style?: 'primary'): types.Button {
  return {
    type: 'button',
    action_id: actionId,
    text: { type: 'plain_text', text: truncate(label, LIMITS.buttonText), emoji: true },
    value: encodeQuery(query),
    ...(style && { style }),
  };
}

interface TableSection {
  text: string;
  rows: number;
}

const FENCE = '```';

/**
 * The rows as a monospace table split into section texts of at most 3,000 characters,
 * each repeating the column header. Lines are built from visible widths, then escaped.
 */
export function tableSections(rows: PageVisitors[], offset: number): TableSection[] {
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
  const budget = LIMITS.sectionText - `${FENCE}\n${header}\n\n${FENCE}`.length;

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
