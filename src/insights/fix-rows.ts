import type { types } from '@slack/bolt';
import { clipEscaped, inlineCode, quote } from '../slack/mrkdwn.js';
import { formatChange, formatCount } from '../visitors/index.js';
import { draftButton } from './draft-button.js';
import type { Evidence } from './evidence.js';
import type { PageRow, QuestionGroup, SearchesView } from './load.js';

// One row of an /insights view or of its digest: one thing readers struggle with, and its Draft a fix button.
// Readers' words are escaped and cut between graphemes (slack/mrkdwn.ts); limits are Slack's.

const SECTION_MAX = 3000;
const COMMENT_MAX = 280;

/** The project and days every row's evidence is about. */
export type Range = { project: string; from: string; to: string };

/** A row with its Draft a fix button. */
function row(text: string, evidence: Evidence): types.SectionBlock {
  return {
    type: 'section',
    text: { type: 'mrkdwn', text: clipEscaped(text, SECTION_MAX) },
    accessory: draftButton(evidence),
  };
}

export function feedbackRow(page: PageRow, rank: number, range: Range): types.SectionBlock {
  const change = page.previousDown === undefined ? '' : ` (${formatChange(page.thumbsDown, page.previousDown)})`;
  const lines = [
    `*${rank}.* ${inlineCode(page.path, 80)} · 👎 ${formatCount(page.thumbsDown)}${change} · 👍 ${formatCount(page.thumbsUp)}`,
    ...page.comments.map((comment) => quote(comment, COMMENT_MAX)),
  ];
  const { path, thumbsDown, thumbsUp, comments } = page;
  return row(lines.join('\n'), { kind: 'page', ...range, path, thumbsDown, thumbsUp, comments });
}

export function searchRow(search: SearchesView['rows'][number], rank: number, range: Range): types.SectionBlock {
  const clicked = search.clicked ? inlineCode(search.clicked, 80) : 'nothing';
  // Slack shows an empty or blank code span as its backticks.
  const term = search.term.trim() ? inlineCode(search.term, 100) : '_a blank search_';
  const text = `*${rank}.* ${term} · ${formatCount(search.hits)} searches · ${Math.round(search.ctr * 100)}% clicked · clicked instead: ${clicked}`;
  return row(text, { kind: 'search', ...range, ...search });
}

export function questionRow(group: QuestionGroup, rank: number, range: Range): types.SectionBlock {
  // The service's topic may hold mrkdwn's marks and line breaks: as code, it shows as written, on the row's line.
  const title = group.topic ? inlineCode(group.topic, 100) : '_No topic_';
  const sources = group.sources.map((url) => inlineCode(url.replace(/^https:\/\/[^/]+/, '') || url, 80));
  const lines = [
    `*${rank}.* ${title} · ${formatCount(group.count)} unanswered`,
    ...group.questions.slice(0, 3).map((question) => quote(question, COMMENT_MAX)),
    `Sources tried: ${sources.length ? sources.slice(0, 5).join(', ') : 'none'}`,
  ];
  return row(lines.join('\n'), { kind: 'questions', ...range, ...group, questions: group.questions.slice(0, 5) });
}
