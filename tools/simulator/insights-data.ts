import type { Conversation, FeedbackEntry, PageFeedback, SearchRow } from './insights-contract.js';
import {
  CODE_SNIPPETS,
  DOCS_ORIGIN,
  DOWN_COMMENTS,
  FEEDBACK_PAGES,
  QUESTIONS,
  SEARCH_TERMS,
  UP_COMMENTS,
} from './insights-seed.js';
import { DAY_MS, fmix, hashString } from './visitors-data.js';

// Deterministic feedback, searches and assistant conversations per UTC day (2024-01-01 to 2026-12-31), each from
// a seeded hash of the day, so any range gives the same answer every time.

const FIRST_DAY = Date.UTC(2024, 0, 1) / DAY_MS;
const END_DAY = Date.UTC(2027, 0, 1) / DAY_MS;
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

const pick = <T>(list: readonly T[], r: number): T => list[r % list.length] as T;
/** Skewed towards the start of the list: a few pages get most of the feedback. */
const skewed = <T>(list: readonly T[], r: number): T => list[Math.floor(((r % 1000) / 1000) ** 2 * list.length)] as T;

export class InsightsDataSet {
  readonly #seed: number;

  constructor(seed: number) {
    this.#seed = fmix(seed ^ 0x1b873593);
  }

  /** Feedback in [fromMs, toMs), newest first. */
  feedback(fromMs: number, toMs: number): FeedbackEntry[] {
    return this.#days(fromMs, toMs)
      .flatMap((day) => this.#feedbackOf(day))
      .filter((entry) => within(entry.createdAt, fromMs, toMs))
      .reverse();
  }

  /** Per-page counts: thumbs from contextual feedback, code snippet feedback, all; most thumbs-down first. */
  byPage(entries: FeedbackEntry[]): PageFeedback[] {
    const pages = new Map<string, PageFeedback>();
    for (const entry of entries) {
      const page = pages.get(entry.path) ?? { path: entry.path, thumbsUp: 0, thumbsDown: 0, code: 0, total: 0 };
      if ('helpful' in entry) page[entry.helpful ? 'thumbsUp' : 'thumbsDown'] += 1;
      if (entry.source === 'code_snippet') page.code += 1;
      page.total += 1;
      pages.set(entry.path, page);
    }
    return [...pages.values()].sort((a, b) => b.thumbsDown - a.thumbsDown || b.total - a.total);
  }

  /** Search terms in [fromMs, toMs) by hits, most first. */
  searches(fromMs: number, toMs: number): SearchRow[] {
    const days = this.#days(fromMs, toMs);
    const rows = SEARCH_TERMS.flatMap(({ term, weight, clicked, ctr }) => {
      let hits = 0;
      let last = 0;
      for (const day of days) {
        const r = fmix(hashString(term) ^ fmix(day + this.#seed));
        const count = Math.floor(weight * ((r & 1023) / 1024)) % 7;
        if (count > 0) [hits, last] = [hits + count, day * DAY_MS + ((r >>> 10) % DAY_MS)];
      }
      if (hits === 0 || last < fromMs || last >= toMs) return [];
      const rate = Math.round(ctr * 100) / 100;
      return [{ searchQuery: term, hits, ctr: rate, topClickedPage: clicked, lastSearchedAt: iso(last) }];
    });
    return rows.sort((a, b) => b.hits - a.hits || (a.searchQuery < b.searchQuery ? -1 : 1));
  }

  /** Assistant turns in [fromMs, toMs), newest first (ids are ULIDs, so also by id, descending). */
  conversations(fromMs: number, toMs: number): Conversation[] {
    return this.#days(fromMs, toMs)
      .flatMap((day) => this.#conversationsOf(day))
      .filter((turn) => within(turn.timestamp, fromMs, toMs))
      .sort((a, b) => (a.id < b.id ? 1 : -1));
  }

  /** The turn whose id this is, found on the day its ULID's time names. */
  conversation(id: string): Conversation | undefined {
    const ms = [...id.slice(0, 10)].reduce((sum, char) => sum * 32 + CROCKFORD.indexOf(char), 0);
    const day = Math.floor(ms / DAY_MS);
    return this.#conversationsOf(day).find((turn) => turn.id === id);
  }

  #days(fromMs: number, toMs: number): number[] {
    const first = Math.max(FIRST_DAY, Math.floor(fromMs / DAY_MS));
    const end = Math.min(END_DAY, Math.ceil(toMs / DAY_MS));
    return Array.from({ length: Math.max(0, end - first) }, (_, i) => first + i);
  }

  #feedbackOf(day: number): FeedbackEntry[] {
    if (day < FIRST_DAY || day >= END_DAY) return [];
    const count = fmix(day ^ this.#seed) % 5;
    return Array.from({ length: count }, (_, i) => {
      const r = fmix(Math.imul(day, 8) + i + this.#seed);
      const base = {
        id: `fb_${day}_${i}`,
        path: skewed(FEEDBACK_PAGES, r),
        createdAt: iso(
          day * DAY_MS + (Math.floor(((((r >>> 4) % 1000) / 1000) * DAY_MS) / count) + (DAY_MS / count) * i),
        ),
        status: pick(
          ['pending', 'pending', 'pending', 'pending', 'pending', 'resolved', 'in_progress', 'dismissed'] as const,
          r >>> 16,
        ),
      };
      const kind = (r >>> 8) % 10;
      if (kind < 6) {
        const helpful = (r >>> 12) % 3 === 0;
        const comment = helpful ? pick(UP_COMMENTS, r >>> 20) : pick(DOWN_COMMENTS, r >>> 20);
        const contact = (r >>> 24) % 4 === 0 ? `reader${day % 97}@example.com` : null;
        return { ...base, source: 'contextual', comment, helpful, contact };
      }
      if (kind === 9)
        return {
          ...base,
          source: 'code_snippet',
          comment: 'This snippet fails as written.',
          ...pick(CODE_SNIPPETS, r >>> 20),
        };
      return { ...base, source: kind === 8 ? 'agent' : 'thumbs_only', comment: null };
    });
  }

  #conversationsOf(day: number): Conversation[] {
    if (day < FIRST_DAY || day >= END_DAY) return [];
    const count = fmix(day ^ this.#seed ^ 0xabc) % 5;
    return Array.from({ length: count }, (_, i) => {
      const r = fmix(Math.imul(day, 16) + i + (this.#seed ^ 0x77));
      const ms = day * DAY_MS + (DAY_MS / 5) * i + ((r >>> 3) % 3_600_000);
      const question = skewed(QUESTIONS, r);
      const pagePath = (r >>> 12) % 3 === 0 ? null : pick(FEEDBACK_PAGES, r >>> 14);
      const response = question.clarifying
        ? 'Do you mean deploying your docs or deploying the API?'
        : question.unanswered
          ? "I couldn't find this in the documentation."
          : 'Here is how, step by step.';
      return {
        id: ulid(ms, r),
        timestamp: iso(ms),
        query: question.query,
        response,
        // The document lets `responseType` be absent ("defaults to `answer`"): every third answer leaves it out.
        ...(question.clarifying
          ? { responseType: 'clarifying_question' as const }
          : i % 3
            ? { responseType: 'answer' as const }
            : {}),
        sources: question.sources.map(({ title, path }) => ({ title, url: `${DOCS_ORIGIN}${path}` })),
        resolutionStatus: question.unanswered ? 'unanswered' : 'answered',
        queryCategory: question.category,
        pageUrl: pagePath === null ? null : `${DOCS_ORIGIN}${pagePath}`,
      };
    });
  }
}

function within(stamp: string | null, fromMs: number, toMs: number): boolean {
  const ms = stamp === null ? Number.NaN : Date.parse(stamp);
  return ms >= fromMs && ms < toMs;
}

const iso = (ms: number) => new Date(Math.floor(ms)).toISOString();

/** A ULID: 10 characters of time, 16 of (seeded) randomness. */
function ulid(ms: number, r: number): string {
  let time = '';
  for (let rest = Math.floor(ms), i = 0; i < 10; i++, rest = Math.floor(rest / 32)) time = CROCKFORD[rest % 32] + time;
  let random = '';
  for (let i = 0, h = r; i < 16; i++, h = fmix(h + i)) random += CROCKFORD[h % 32];
  return time + random;
}
