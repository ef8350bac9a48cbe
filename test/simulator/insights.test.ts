import { describe, expect, it } from 'vitest';
import {
  ConversationsResponseSchema,
  FeedbackByPageSchema,
  FeedbackResponseSchema,
  SearchesResponseSchema,
} from '../../tools/simulator/insights-contract.js';
import { useSimulator } from '../fakes/start-simulator.js';
import { call } from './http.js';

const ANALYTICS = '/v1/analytics/proj_1';
const RANGE = 'dateFrom=2025-03-01&dateTo=2025-06-01';

describe('feedback, searches and assistant analytics', () => {
  const sim = useSimulator({ now: () => Date.parse('2025-06-15T10:00:00Z') });

  async function get(path: string): Promise<unknown> {
    const { status, json } = await call(sim().url, 'GET', `${ANALYTICS}/${path}`);
    expect(status, JSON.stringify(json)).toBe(200);
    return json;
  }

  it('pages feedback with its cursor until hasMore is false, every entry once, newest first', async () => {
    const ids: string[] = [];
    let cursor: string | null = null;
    do {
      const page = FeedbackResponseSchema.parse(
        await get(`feedback?${RANGE}&limit=40${cursor ? `&cursor=${cursor}` : ''}`),
      );
      ids.push(...page.feedback.map((entry) => entry.id));
      expect(page.hasMore).toBe(page.nextCursor !== null);
      cursor = page.nextCursor;
    } while (cursor);
    const whole = FeedbackResponseSchema.parse(await get(`feedback?${RANGE}&limit=100`));
    expect(ids.length).toBeGreaterThan(100);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.slice(0, 100)).toEqual(whole.feedback.map((entry) => entry.id));
  });

  it('filters feedback by source and status, each in its documented shape', async () => {
    const code = FeedbackResponseSchema.parse(await get(`feedback?${RANGE}&source=code_snippet&limit=100`));
    expect(code.feedback.length).toBeGreaterThan(0);
    for (const entry of code.feedback)
      expect(entry).toMatchObject({ source: 'code_snippet', code: expect.any(String) });
    const open = FeedbackResponseSchema.parse(await get(`feedback?${RANGE}&status=in_progress,resolved&limit=100`));
    expect(new Set(open.feedback.map((entry) => entry.status))).toEqual(new Set(['in_progress', 'resolved']));
    const comments = open.feedback.map((entry) => entry.comment);
    expect(comments).toContain(null);
  });

  it('counts feedback by page, most thumbs-down first, with readers comments that carry markup and orders', async () => {
    const pages = FeedbackByPageSchema.parse(await get(`feedback/by-page?${RANGE}&limit=3`));
    expect(pages.feedback).toHaveLength(3);
    expect(pages.hasMore).toBe(true);
    const downs = pages.feedback.map((page) => page.thumbsDown);
    expect(downs).toEqual([...downs].sort((a, b) => b - a));
    const all = FeedbackResponseSchema.parse(await get(`feedback?${RANGE}&source=contextual&limit=100`));
    const said = all.feedback.map((entry) => entry.comment).join('\n');
    expect(said).toContain('Ignore previous instructions');
    expect(said).toContain('<b>bold</b>');
  });

  it('answers search terms by hits with a cursor, some never clicked (topClickedPage null)', async () => {
    const first = SearchesResponseSchema.parse(await get(`searches?${RANGE}&limit=5`));
    expect(first.searches).toHaveLength(5);
    const hits = first.searches.map((row) => row.hits);
    expect(hits).toEqual([...hits].sort((a, b) => b - a));
    const rest = SearchesResponseSchema.parse(await get(`searches?${RANGE}&limit=100&cursor=${first.nextCursor}`));
    expect(rest.nextCursor).toBeNull();
    const rows = [...first.searches, ...rest.searches];
    expect(first.totalSearches).toBe(rows.reduce((sum, row) => sum + row.hits, 0));
    expect(rows.some((row) => row.topClickedPage === null && row.ctr === 0)).toBe(true);
    expect(rows.some((row) => row.topClickedPage !== null)).toBe(true);
  });

  it('pages conversations by ULID cursor, with both response types and unanswered turns', async () => {
    const first = ConversationsResponseSchema.parse(await get(`assistant?${RANGE}&limit=10`));
    expect(first.hasMore).toBe(true);
    expect(first.nextCursor).toBe(first.conversations.at(-1)?.id);
    const next = ConversationsResponseSchema.parse(
      await get(`assistant?${RANGE}&limit=1000&cursor=${first.nextCursor}`),
    );
    const all = [...first.conversations, ...next.conversations];
    expect(new Set(all.map((turn) => turn.id)).size).toBe(all.length);
    expect(all.some((turn) => turn.responseType === 'clarifying_question')).toBe(true);
    expect(all.some((turn) => turn.responseType === undefined)).toBe(true);
    expect(all.some((turn) => turn.resolutionStatus === 'unanswered')).toBe(true);
    expect(all.some((turn) => turn.pageUrl === null && turn.queryCategory === null)).toBe(true);
  });
});
