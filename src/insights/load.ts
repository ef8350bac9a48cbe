import { maskSecrets } from '../agent/index.js';
import type { Projects } from '../config/projects.js';
import type { Deps } from '../deps.js';
import {
  type Conversation,
  FEEDBACK_BY_PAGE_MAX,
  type FeedbackEntry,
  type PageFeedback,
} from '../mintlify/analytics-schemas.js';
import { describeFailure, type ServiceFailure, type ServiceResult } from '../mintlify/failure.js';
import { comparisonCut, previousPeriod, type ReportQuery, serviceWindow } from '../visitors/index.js';
import { pagePathOf } from './page-path.js';
import { groupQuestions, type QuestionGroup } from './questions.js';

// Reading what readers said from the service, one use case per view. Never throws: a failure comes back as a value.
// A key or token readers pasted is masked as read (`mint_…`): shown so, and a job's start takes it as evidence.

export type LoadDeps = Pick<Deps, 'mintlify' | 'log' | 'now'> & { projects: Pick<Projects, 'docsUrls'> };
export type Loaded<T> = { ok: true; value: T } | { ok: false; failure: ServiceFailure };

/** Feedback comments are read through this many of the service's pages (100 entries each) at most. */
export const COMMENT_PAGES = 5;
const COMMENTS_PER_PAGE = 3;
/** Below this click-through a search counts as one readers did not find an answer for. */
export const LOW_CTR = 0.1;

export interface PageRow extends PageFeedback {
  previousDown: number | undefined;
  comments: string[];
}
export interface FeedbackView {
  rows: PageRow[];
  /** Pages with thumbs-down beyond this one (by-page has no cursor: the app pages its rows). */
  more: boolean;
  /** The service had more rated pages than its one answer holds (100, in no documented order): they are not here. */
  beyond: boolean;
}

function unwrap<T>(deps: LoadDeps, project: string, result: ServiceResult<T>): Loaded<T> {
  if (result.ok) return result;
  deps.log.warn('insights.fetch_failed', { project, failure: result.failure.code, error: describeFailure(result) });
  return { ok: false, failure: result.failure };
}

/** Pages by thumbs-down, with the change against the previous period and readers' comments on each. */
export async function loadFeedback(deps: LoadDeps, project: string, query: ReportQuery): Promise<Loaded<FeedbackView>> {
  const window = serviceWindow(query);
  const [current, previous] = await Promise.all([
    deps.mintlify.getFeedbackByPage(project, { ...window, limit: FEEDBACK_BY_PAGE_MAX }),
    // While the range runs, only as far into the previous period as now is into this one: like with like.
    deps.mintlify.getFeedbackByPage(project, {
      ...serviceWindow(previousPeriod(query), comparisonCut(query, deps.now())),
      limit: FEEDBACK_BY_PAGE_MAX,
    }),
  ]);
  const pages = unwrap(deps, project, current);
  if (!pages.ok) return pages;
  const before = new Map((previous.ok ? previous.value.feedback : []).map((p) => [p.path, p.thumbsDown]));
  // A page missing from a previous answer that was cut short may have had thumbs-down: unknown, not 0.
  const missingBefore = previous.ok && !previous.value.hasMore ? 0 : undefined;
  const down = pages.value.feedback.filter((p) => p.thumbsDown > 0).sort((a, b) => b.thumbsDown - a.thumbsDown);
  const shown = down.slice(query.offset, query.offset + query.limit);
  const comments = await commentsByPath(deps, project, window, new Set(shown.map((p) => p.path)));
  const rows = shown.map((page) => ({
    ...page,
    previousDown: before.get(page.path) ?? missingBefore,
    comments: comments.get(page.path) ?? [],
  }));
  if (pages.value.hasMore) deps.log.info('insights.feedback_cut', { project, pages: pages.value.feedback.length });
  const more = query.offset + query.limit < down.length;
  return { ok: true, value: { rows, more, beyond: pages.value.hasMore } };
}

/** Comments of readers who did not find the page helpful, newest first, walking the service's cursor. */
async function commentsByPath(
  deps: LoadDeps,
  project: string,
  window: { dateFrom: string; dateTo: string },
  paths: Set<string>,
): Promise<Map<string, string[]>> {
  const found = new Map<string, string[]>();
  let cursor: string | undefined;
  for (let page = 0; page < COMMENT_PAGES; page++) {
    const result = await deps.mintlify.getFeedback(project, { ...window, limit: 100, ...(cursor && { cursor }) });
    if (!result.ok) {
      // Comments are extra: the counts stand without them.
      deps.log.warn('insights.comments_unavailable', { project, failure: result.failure.code, pages: page });
      break;
    }
    for (const entry of result.value.feedback)
      addComment(found, { ...entry, path: pagePathOf(entry.path, project, deps.projects.docsUrls) }, paths);
    cursor = result.value.nextCursor ?? undefined;
    if (!cursor || !result.value.hasMore) break;
  }
  return found;
}

function addComment(found: Map<string, string[]>, entry: FeedbackEntry, paths: Set<string>): void {
  const comment = entry.comment && maskSecrets(entry.comment.trim());
  if (!comment || entry.helpful === true || !paths.has(entry.path)) return;
  const list = found.get(entry.path) ?? [];
  if (list.length < COMMENTS_PER_PAGE && !list.includes(comment)) found.set(entry.path, [...list, comment]);
}

export interface SearchesView {
  rows: { term: string; hits: number; ctr: number; clicked: string | null }[];
  /** Terms on the service's page, struggling or not. */
  onPage: number;
  totalSearches: number;
  nextCursor: string | undefined;
}

/** One page of the service's search terms (by hits), keeping those readers found nothing worth a click for. */
export async function loadSearches(
  deps: LoadDeps,
  project: string,
  query: ReportQuery,
  cursor?: string,
): Promise<Loaded<SearchesView>> {
  const result = unwrap(
    deps,
    project,
    await deps.mintlify.getSearches(project, {
      ...serviceWindow(query),
      limit: query.limit,
      ...(cursor && { cursor }),
    }),
  );
  if (!result.ok) return result;
  const { searches, totalSearches, nextCursor } = result.value;
  const rows = searches
    .filter((row) => row.topClickedPage == null || row.ctr < LOW_CTR)
    .map((row) => ({
      term: maskSecrets(row.searchQuery),
      hits: row.hits,
      ctr: row.ctr,
      clicked: row.topClickedPage ?? null,
    }));
  return { ok: true, value: { rows, onPage: searches.length, totalSearches, nextCursor: nextCursor ?? undefined } };
}

/** The most terms one answer of searches holds (the document bounds `limit` at 100). */
const SEARCHES_PAGE_MAX = 100;

/**
 * A digest's searches: the first `rows` terms readers struggle with among the service's most-searched terms, not
 * whichever of the first `rows` terms struggle (the most searched often all found a click).
 */
export async function loadStrugglingSearches(
  deps: LoadDeps,
  project: string,
  query: ReportQuery,
  rows: number,
): Promise<Loaded<SearchesView>> {
  const loaded = await loadSearches(deps, project, { ...query, limit: SEARCHES_PAGE_MAX });
  return loaded.ok ? { ok: true, value: { ...loaded.value, rows: loaded.value.rows.slice(0, rows) } } : loaded;
}

export type { QuestionGroup } from './questions.js';
export interface QuestionsView {
  groups: QuestionGroup[];
  /** Where Next → goes: the rest of this service page's groups, or the service's next page. */
  next: { cursor: string | undefined; offset: number } | undefined;
}

/** Unanswered questions of one page of conversations, grouped by the assistant's category when several share it. */
export async function loadQuestions(
  deps: LoadDeps,
  project: string,
  query: ReportQuery,
  cursor?: string,
): Promise<Loaded<QuestionsView>> {
  const result = unwrap(
    deps,
    project,
    await deps.mintlify.getConversations(project, { ...serviceWindow(query), limit: 100, ...(cursor && { cursor }) }),
  );
  if (!result.ok) return result;
  const unanswered = groupQuestions(unansweredOf(result.value.conversations));
  // A service page (100 conversations) can hold more groups than a list shows: they come before its next page.
  const end = query.offset + query.limit;
  const groups = unanswered.slice(query.offset, end);
  const serviceNext = (result.value.hasMore && result.value.nextCursor) || undefined;
  const next = end < unanswered.length ? { cursor, offset: end } : serviceNext && { cursor: serviceNext, offset: 0 };
  return { ok: true, value: { groups, next: next || undefined } };
}

/** The most of the service's pages (1,000 conversations each) a digest reads for its range's questions. */
export const RANGE_QUESTION_PAGES = 20;
const CONVERSATIONS_PAGE_MAX = 1000;

export interface RangeQuestions {
  groups: QuestionGroup[];
  /** Conversations read when the range had more than `RANGE_QUESTION_PAGES` pages (the rest are not counted). */
  cutAt: number | undefined;
}

/** Every unanswered question of the range, grouped (the digest's section). */
export async function loadRangeQuestions(
  deps: LoadDeps,
  project: string,
  query: ReportQuery,
): Promise<Loaded<RangeQuestions>> {
  const loaded = await loadUnanswered(deps, project, query);
  if (!loaded.ok) return loaded;
  return { ok: true, value: { groups: groupQuestions(loaded.value.turns), cutAt: loaded.value.cutAt } };
}

/**
 * The range's unanswered conversations, walking the service's cursor up to `RANGE_QUESTION_PAGES` pages: the
 * digest groups them, the CSV export lists them.
 */
export async function loadUnanswered(
  deps: LoadDeps,
  project: string,
  query: ReportQuery,
): Promise<Loaded<{ turns: Conversation[]; cutAt: number | undefined }>> {
  const turns: Conversation[] = [];
  let read = 0;
  let cursor: string | undefined;
  for (let page = 0; page < RANGE_QUESTION_PAGES; page++) {
    const result = unwrap(
      deps,
      project,
      await deps.mintlify.getConversations(project, {
        ...serviceWindow(query),
        limit: CONVERSATIONS_PAGE_MAX,
        ...(cursor && { cursor }),
      }),
    );
    if (!result.ok) return result;
    read += result.value.conversations.length;
    turns.push(...unansweredOf(result.value.conversations));
    cursor = (result.value.hasMore && result.value.nextCursor) || undefined;
    if (!cursor) return { ok: true, value: { turns, cutAt: undefined } };
  }
  deps.log.info('insights.questions_cut', { project, read });
  return { ok: true, value: { turns, cutAt: read } };
}

/** The turns the assistant could not answer, readers' words masked. */
function unansweredOf(turns: Conversation[]): Conversation[] {
  return turns
    .filter((turn) => turn.resolutionStatus === 'unanswered')
    .map((turn) => ({
      ...turn,
      query: maskSecrets(turn.query),
      queryCategory: turn.queryCategory && maskSecrets(turn.queryCategory),
    }));
}
