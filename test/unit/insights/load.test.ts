import { describe, expect, it } from 'vitest';
import { buildView } from '../../../src/insights/blocks.js';
import {
  type LoadDeps,
  loadFeedback,
  loadRangeQuestions,
  loadStrugglingSearches,
  RANGE_QUESTION_PAGES,
} from '../../../src/insights/load.js';
import { failureText } from '../../../src/insights/messages.js';
import { showInsights } from '../../../src/insights/run.js';
import type { FeedbackByPageResponse } from '../../../src/mintlify/analytics-schemas.js';
import { captureLogs } from '../../support/logs.js';

const QUERY = { from: '2026-11-01', to: '2026-11-28', limit: 20, offset: 0 };
const page = (path: string, thumbsDown: number) => ({ path, thumbsUp: 1, thumbsDown, code: 0, total: thumbsDown + 1 });

/**
 * The service's feedback by page has no cursor and at most 100 pages an answer, in no documented order: `current`
 * answers for the range, `previous` for the period before it.
 */
function deps(
  current: FeedbackByPageResponse,
  previous: FeedbackByPageResponse,
  { now = Date.parse('2026-12-01T00:00:00Z'), asked = [] as unknown[] } = {},
): LoadDeps {
  const answers = [current, previous];
  const mintlify = {
    getFeedbackByPage: async (project: string, query: unknown) => {
      asked.push(query);
      return { ok: true, project, value: answers.shift() };
    },
    getFeedback: async (project: string) => ({ ok: true, project, value: { feedback: [], hasMore: false } }),
  };
  return {
    mintlify: mintlify as unknown as LoadDeps['mintlify'],
    log: captureLogs().log,
    now: () => now,
    projects: { docsUrls: {} },
  };
}

describe('feedback by page beyond the service’s first 100 pages', () => {
  it('says the list stops at the pages the service gave, and a previous count it did not give is unknown, not 0', async () => {
    const loaded = await loadFeedback(
      deps({ feedback: [page('/a', 5), page('/b', 3)], hasMore: true }, { feedback: [page('/a', 2)], hasMore: true }),
      'proj_1',
      QUERY,
    );
    if (!loaded.ok) throw new Error('expected the feedback');
    expect(loaded.value.beyond).toBe(true);
    expect(loaded.value.rows.map((r) => [r.path, r.previousDown])).toEqual([
      ['/a', 2],
      ['/b', undefined],
    ]);
    const view = JSON.stringify(
      buildView({ view: 'feedback', query: QUERY }, 'proj_1', { view: 'feedback', data: loaded.value }),
    );
    expect(view).toContain('Mintlify lists at most 100 rated pages');
  });

  it('a complete list says nothing more, and a page the previous period lacks had 0', async () => {
    const loaded = await loadFeedback(
      deps({ feedback: [page('/a', 5), page('/b', 3)], hasMore: false }, { feedback: [], hasMore: false }),
      'proj_1',
      QUERY,
    );
    if (!loaded.ok) throw new Error('expected the feedback');
    expect(loaded.value.beyond).toBe(false);
    expect(loaded.value.rows.map((r) => r.previousDown)).toEqual([0, 0]);
    const view = JSON.stringify(
      buildView({ view: 'feedback', query: QUERY }, 'proj_1', { view: 'feedback', data: loaded.value }),
    );
    expect(view).not.toContain('at most 100 rated pages');
  });
});

describe('feedback’s change on the previous period', () => {
  const empty = { feedback: [], hasMore: false };

  it('while the range runs, compares with as far into the previous period as now is into this one', async () => {
    const asked: unknown[] = [];
    const today = { from: '2026-11-28', to: '2026-11-28', limit: 20, offset: 0 };
    await loadFeedback(deps(empty, empty, { now: Date.parse('2026-11-28T09:00:00Z'), asked }), 'proj_1', today);
    expect(asked).toEqual([
      { dateFrom: '2026-11-28', dateTo: '2026-11-29', limit: 100 },
      { dateFrom: '2026-11-27T00:00:00+00:00', dateTo: '2026-11-27T09:00:00+00:00', limit: 100 },
    ]);
  });

  it('once the range has ended, compares whole periods (1–28 Nov with 1–28 Oct)', async () => {
    const asked: unknown[] = [];
    await loadFeedback(deps(empty, empty, { asked }), 'proj_1', QUERY);
    expect(asked[1]).toEqual({ dateFrom: '2026-10-01', dateTo: '2026-10-29', limit: 100 });
  });
});

describe('Next → and the service’s cursor', () => {
  it('a cursor too long for a button leaves the rest to Download CSV instead of a Next → that cannot work', () => {
    const searches = (nextCursor: string) =>
      JSON.stringify(
        buildView({ view: 'searches', query: QUERY }, 'proj_1', {
          view: 'searches',
          data: { rows: [], onPage: 0, totalSearches: 0, nextCursor },
        }),
      );
    expect(searches('c'.repeat(100))).toContain('insights.next');
    expect(searches('c'.repeat(600))).not.toContain('insights.next');
    expect(searches('c'.repeat(600))).toContain('insights.csv');
  });
});

describe('the digest’s searches', () => {
  /** Terms by hits, as the service orders them: the 3 most searched found clicks, the 4th and 5th did not. */
  const terms = ['api key', 'webhooks', 'pricing', 'rate limits', 'sso'].map((searchQuery, i) => ({
    searchQuery,
    hits: 100 - i * 10,
    ctr: i < 3 ? 0.8 : 0,
    topClickedPage: i < 3 ? '/quickstart' : null,
    lastSearchedAt: '2026-11-27T10:00:00Z',
  }));
  const asked: number[] = [];
  const digestDeps: LoadDeps = {
    mintlify: {
      getFeedbackByPage: async (project: string) => ({ ok: true, project, value: { feedback: [], hasMore: false } }),
      getFeedback: async (project: string) => ({ ok: true, project, value: { feedback: [], hasMore: false } }),
      getConversations: async (project: string) => ({
        ok: true,
        project,
        value: { conversations: [], hasMore: false },
      }),
      getSearches: async (project: string, q: { limit: number }) => {
        asked.push(q.limit);
        return { ok: true, project, value: { searches: terms.slice(0, q.limit), totalSearches: 400 } };
      },
    } as unknown as LoadDeps['mintlify'],
    log: captureLogs().log,
    now: () => Date.parse('2026-12-01T00:00:00Z'),
    projects: { docsUrls: {} },
  };
  const audience = { userId: 'U1', channel: 'C1', responseUrl: 'https://hooks.slack.invalid/1' };

  it('are the most-searched terms readers struggle with, not whichever of the top 3 terms struggle', async () => {
    const shown = JSON.stringify(
      await showInsights(digestDeps, { view: 'digest', project: 'proj_1', query: QUERY, audience }),
    );
    expect(shown).toContain('rate limits');
    expect(shown).toContain('sso');
    expect(shown).not.toContain('Every search on this page led readers');
    expect(asked).toEqual([100]);
    // Each part's More: is its view on the digest's range.
    expect(shown).toContain('More: `/insights searches 2026-11-01..2026-11-28`');
  });

  it('in the weekly digest too', async () => {
    asked.length = 0;
    const searches = await loadStrugglingSearches(digestDeps, 'proj_1', QUERY, 3);
    expect(searches.ok && searches.value.rows.map((r) => r.term)).toEqual(['rate limits', 'sso']);
    expect(asked).toEqual([100]);
  });
});

describe('what /insights says when the service fails', () => {
  it('a 404 points at the project; a refusal’s message is cut to one short line', () => {
    const lost = JSON.stringify(failureText({ code: 'not_found', message: 'no such project' }, '/insights 7d'));
    expect(lost).toContain('does not know this project');
    expect(lost).not.toContain('try again');
    const refused = failureText({ code: 'refused', message: 'x'.repeat(5000), details: [] }, '/insights 7d');
    expect(JSON.stringify(refused).length).toBeLessThan(1000);
  });
});

describe('a range’s questions (the digest)', () => {
  /** A service whose every page holds one unanswered turn and says there are more. */
  function endless(asked: unknown[]): LoadDeps {
    const turn = (n: number) => ({
      id: `01KAB${String(n).padStart(21, '0')}`,
      timestamp: '2026-11-22T12:00:00.000Z',
      query: 'How do I rotate a key?',
      response: '',
      sources: [],
      resolutionStatus: 'unanswered',
      queryCategory: 'Keys',
      pageUrl: null,
    });
    const mintlify = {
      getConversations: async (project: string, query: unknown) => {
        asked.push(query);
        const value = { conversations: [turn(asked.length)], nextCursor: '01KA0000000000000000000000', hasMore: true };
        return { ok: true, project, value };
      },
    };
    return {
      mintlify: mintlify as unknown as LoadDeps['mintlify'],
      log: captureLogs().log,
      now: () => 0,
      projects: { docsUrls: {} },
    };
  }

  it('walks the service’s cursor, 1,000 a page, up to its bound, and says where it stopped', async () => {
    const asked: unknown[] = [];
    const loaded = await loadRangeQuestions(endless(asked), 'proj_1', QUERY);
    if (!loaded.ok) throw new Error('expected the questions');
    expect(asked).toHaveLength(RANGE_QUESTION_PAGES);
    expect(asked[0]).toEqual({ dateFrom: '2026-11-01', dateTo: '2026-11-29', limit: 1000 });
    expect(asked[1]).toMatchObject({ cursor: '01KA0000000000000000000000' });
    expect(loaded.value.cutAt).toBe(RANGE_QUESTION_PAGES);
    expect(loaded.value.groups).toEqual([
      { topic: 'Keys', questions: ['How do I rotate a key?'], count: RANGE_QUESTION_PAGES, sources: [] },
    ]);
  });
});
