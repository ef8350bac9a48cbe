import type { types } from '@slack/bolt';
import { type Message, section } from '../../slack/message.js';
import { plainLabel } from '../../slack/mrkdwn.js';
import { type DayRange, formatCount, formatRange } from '../../visitors/index.js';
import { feedbackRow, questionRow, searchRow } from '../fix-rows.js';
import type { FeedbackView, PageRow, QuestionGroup, RangeQuestions, SearchesView } from '../load.js';
import { COMMAND } from '../messages.js';

// The insights digest's message: of a week's feedback, searches and questions, the three fixes readers need most,
// each a row with its Draft a fix button. Pure.

type SearchRow = SearchesView['rows'][number];

export interface Fixes {
  /** The page with the most thumbs-down and comments together. */
  page: PageRow | undefined;
  /** The most-searched term readers clicked nothing for (else the one they clicked least). */
  search: SearchRow | undefined;
  /** The unanswered question most readers asked. */
  question: QuestionGroup | undefined;
  /** Conversations read when the week had more than the digest reads (`RangeQuestions.cutAt`). */
  questionsCutAt: number | undefined;
}

/** The first item with the highest score (the service's order breaks ties). */
function best<T>(items: readonly T[], score: (item: T) => number): T | undefined {
  let found: T | undefined;
  for (const item of items) if (found === undefined || score(item) > score(found)) found = item;
  return found;
}

export function pickFixes(feedback: FeedbackView, searches: SearchesView, questions: RangeQuestions): Fixes {
  const noClicks = searches.rows.filter((row) => row.clicked === null || row.ctr === 0);
  return {
    page: best(feedback.rows, (page) => page.thumbsDown + page.comments.length),
    search: best(noClicks.length ? noClicks : searches.rows, (row) => row.hits),
    question: best(questions.groups, (group) => group.count),
    questionsCutAt: questions.cutAt,
  };
}

const LABELS = {
  page: ['Page readers rate down most', 'No page was rated down this week.'],
  search: ['Top search with no clicks', 'Every search led readers to a result they clicked.'],
  question: ['Most-asked unanswered question', 'The assistant answered every question.'],
} as const;

/** No unanswered question, when the digest read only part of the week's conversations: not "every question". */
const noneAmong = (read: number) =>
  `No unanswered question among the first ${formatCount(read)} conversations Mintlify listed for the week (it had more).`;

function label(text: string): types.ContextBlock {
  return { type: 'context', elements: [{ type: 'mrkdwn', text: `*${text}*` }] };
}

/** The digest: a header, then each fix (or why there is none) under its label, and how to stop it. */
export function fixesMessage(
  fixes: Fixes,
  { project, period, scheduleText }: { project: string; period: DayRange; scheduleText: string },
): Message {
  const range = { project, from: period.from, to: period.to };
  const title = `Weekly insights digest · ${project} · ${formatRange(period.from, period.to)}`;
  const rows = {
    page: fixes.page && feedbackRow(fixes.page, 1, range),
    search: fixes.search && searchRow(fixes.search, 2, range),
    question: fixes.question && questionRow(fixes.question, 3, range),
  };
  const blocks: types.KnownBlock[] = [{ type: 'header', text: { type: 'plain_text', text: plainLabel(title, 150) } }];
  for (const part of ['page', 'search', 'question'] as const) {
    const [name, none] = LABELS[part];
    const cut = part === 'question' && fixes.questionsCutAt !== undefined;
    blocks.push(label(name), rows[part] ?? section(cut ? noneAmong(fixes.questionsCutAt ?? 0) : none));
  }
  blocks.push({
    type: 'context',
    elements: [{ type: 'mrkdwn', text: `Posted ${scheduleText} · \`${COMMAND} digest off\` stops it.` }],
  });
  const count = Object.values(rows).filter(Boolean).length;
  return { text: `${title}: ${count} fix${count === 1 ? '' : 'es'} readers need.`, blocks };
}
