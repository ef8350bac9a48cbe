import type { types } from '@slack/bolt';
import type { VisitorCounts, VisitorsResponse } from '../mintlify/schemas.js';
import type { DataTableBlock, MessageBlock } from '../slack/data-blocks.js';
import { type Message, section } from '../slack/message.js';
import { truncate } from '../slack/mrkdwn.js';
import { UTC } from '../zone.js';
import { changes } from './change.js';
import { pagesTable } from './data-table.js';
import { encodeQuery, MAX_OFFSET, type ReportQuery } from './date-range.js';
import { formatCount, formatPercent, formatTime } from './format.js';
import { BUTTON_LABELS, chartCopy, reportCopy } from './messages.js';
import { previousPeriod } from './periods.js';
import { tableSections } from './text-table.js';

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

/** The report twice: its rows as a data table (when they fit one) and as text, for where Slack refuses the table. */
export interface ReportMessages {
  table?: Message;
  text: Message;
}

/**
 * The report with its page of rows as a `data_table` Slack pages and sorts itself, and the same report with the rows
 * as a monospace text table: the fallback where Slack answers `invalid_blocks`. `table` is missing when there are no
 * rows or they pass the block's limits (more than 100 rows, 10,000 characters): the text report is the answer then.
 */
export function reportMessages(page: VisitorsPage, options: ReportOptions = {}): ReportMessages {
  const block = pagesTable(page.response.visitors, reportCopy.tableCaption);
  return { ...(block && { table: buildReport(page, options, block) }), text: buildReport(page, options) };
}

/** The report as Block Kit: header, site totals, the page's rows (`table`, else as monospace text), footer, buttons. */
export function buildReport(page: VisitorsPage, options: ReportOptions = {}, table?: DataTableBlock): Message {
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
    ...(visitors.length > 0 && !table ? [reportCopy.legend] : []),
  ];
  const tail: types.KnownBlock[] = [context([footerParts.join(' · ')])];
  if (shared) tail.push(context([reportCopy.sharedBy(options.sharedBy ?? '')]));
  else tail.push(actions(page));

  let body: MessageBlock[];
  if (visitors.length === 0) body = [section(query.offset > 0 ? reportCopy.pastTheEnd(shared) : reportCopy.noVisitors)];
  else body = table ? [table] : textTable(page, LIMITS.blocks - head.length - tail.length);

  return {
    text: reportCopy.fallback(query, totals.total, totals.human, totals.ai),
    blocks: [...head, ...body, ...tail],
  };
}

/** The rows as text sections, in `room` blocks: the last one says how many rows did not fit. */
function textTable({ query, response }: VisitorsPage, room: number): types.KnownBlock[] {
  const texts = tableSections(response.visitors, query.offset, LIMITS.sectionText);
  if (texts.length <= room) return texts.map((t) => section(t.text));
  const kept = texts.slice(0, room - 1);
  const shownRows = kept.reduce((n, t) => n + t.rows, 0);
  return [
    ...kept.map((t) => section(t.text)),
    section(reportCopy.moreRowsHidden(response.visitors.length - shownRows)),
  ];
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
