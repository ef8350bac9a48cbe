import type { types } from '@slack/bolt';
import { FEEDBACK_BY_PAGE_MAX } from '../mintlify/analytics-schemas.js';
import { type Message, section } from '../slack/message.js';
import { plainLabel } from '../slack/mrkdwn.js';
import { formatCount, formatRange, type ReportQuery } from '../visitors/index.js';
import { DRAFT_ACTION } from './draft-button.js';
import { feedbackRow, questionRow, type Range, searchRow } from './fix-rows.js';
import type { FeedbackView, QuestionsView, SearchesView } from './load.js';
import { commandOf, insightsCopy } from './messages.js';
import { encodePage, fitsButton, type InsightsPage, type View } from './requests.js';

// Block Kit for /insights: a header, the range, one section per row with its Draft a fix button, Next → when the
// service has more (each row: `fix-rows.ts`).

export const ACTION_IDS = { draft: DRAFT_ACTION, next: 'insights.next', csv: 'insights.csv' } as const;
const HEADER_MAX = 150;

function header(view: View, query: ReportQuery, project: string): types.KnownBlock[] {
  const title = `${insightsCopy.header[view]} · ${project} · ${formatRange(query.from, query.to)}`;
  return [
    { type: 'header', text: { type: 'plain_text', text: plainLabel(title, HEADER_MAX) } },
    { type: 'context', elements: [{ type: 'mrkdwn', text: insightsCopy.noStatus }] },
  ];
}

function button(actionId: string, text: string, page: InsightsPage): types.Button {
  return { type: 'button', action_id: actionId, text: { type: 'plain_text', text }, value: encodePage(page) };
}

/** Next → when the service has more; Download CSV for every row of the range. */
function footer(next: InsightsPage | undefined, whole: InsightsPage): types.ActionsBlock {
  return {
    type: 'actions',
    elements: [
      ...(next ? [button(ACTION_IDS.next, insightsCopy.next, next)] : []),
      button(ACTION_IDS.csv, insightsCopy.csv, whole),
    ],
  };
}

export type ViewData =
  | { view: 'feedback'; data: FeedbackView }
  | { view: 'searches'; data: SearchesView }
  | { view: 'questions'; data: QuestionsView };

/** One view's page, as its own message. */
export function buildView(page: InsightsPage, project: string, shown: ViewData): Message {
  const { query } = page;
  const range = { project, from: query.from, to: query.to };
  // Feedback pages by offset; searches and questions by the service's cursor, counting what was shown before.
  const at = shown.view === 'feedback' ? query.offset : (page.before ?? 0);
  const rows = rowsOf(shown, range, at);
  const next = nextPage(page, project, shown, at + rows.length);
  const blocks: types.KnownBlock[] = [
    ...header(shown.view, query, project),
    ...(shown.view === 'feedback' && shown.data.beyond ? [section(insightsCopy.beyond(FEEDBACK_BY_PAGE_MAX))] : []),
    ...(shown.view === 'searches'
      ? [
          section(
            `${formatCount(shown.data.totalSearches)} searches in this range; ${shown.data.rows.length} of the ${shown.data.onPage} terms on this page found nothing readers clicked much.`,
          ),
        ]
      : []),
    ...(rows.length ? rows : [section(noRows(page, shown.view))]),
    footer(next, { view: page.view, query: { ...query, project, offset: 0 } }),
  ];
  return { text: `${insightsCopy.header[shown.view]} (${project})`, blocks };
}

/** Why a page has no rows: none in the range, or (feedback past its first page) a list that shrank meanwhile. */
function noRows(page: InsightsPage, view: ViewData['view']): string {
  return view === 'feedback' && page.query.offset > 0
    ? insightsCopy.pastTheEnd(commandOf(page))
    : insightsCopy.none[view];
}

function rowsOf(shown: ViewData, range: Range, at: number): types.SectionBlock[] {
  switch (shown.view) {
    case 'feedback':
      return shown.data.rows.map((page, i) => feedbackRow(page, at + i + 1, range));
    case 'searches':
      return shown.data.rows.map((search, i) => searchRow(search, at + i + 1, range));
    case 'questions':
      return shown.data.groups.map((group, i) => questionRow(group, at + i + 1, range));
  }
}

/** The page Next → shows; `before`: the rows shown up to the end of this one. */
function nextPage(page: InsightsPage, project: string, shown: ViewData, before: number): InsightsPage | undefined {
  const query = { ...page.query, project };
  if (shown.view === 'feedback')
    return shown.data.more ? { view: 'feedback', query: { ...query, offset: query.offset + query.limit } } : undefined;
  if (shown.view === 'questions') {
    const { next } = shown.data;
    if (!next || (next.cursor && !fitsButton(next.cursor))) return undefined;
    const cursor = next.cursor && { cursor: next.cursor };
    return { view: 'questions', query: { ...query, offset: next.offset }, ...cursor, before };
  }
  const cursor = shown.data.nextCursor;
  return cursor && fitsButton(cursor) ? { view: shown.view, query, cursor, before } : undefined;
}

/** The digest: the first rows of each view, each with its button; a view the service did not answer says so. */
export function buildDigest(
  query: ReportQuery,
  project: string,
  parts: (ViewData | { view: View; failed: true })[],
): Message {
  const range = { project, from: query.from, to: query.to };
  const blocks: types.KnownBlock[] = [...header('digest', query, project)];
  for (const part of parts) {
    const more = insightsCopy.more(commandOf({ view: part.view, query }));
    blocks.push(section(`*${insightsCopy.header[part.view]}* · ${more}`));
    if ('failed' in part) {
      blocks.push(section('The analytics service did not answer for this part.'));
      continue;
    }
    const rows = rowsOf(part, range, 0);
    blocks.push(...(rows.length ? rows : [section(insightsCopy.none[part.view])]));
  }
  return { text: `${insightsCopy.header.digest} (${project})`, blocks };
}
