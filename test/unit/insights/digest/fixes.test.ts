import { describe, expect, it } from 'vitest';
import { fixesMessage, pickFixes } from '../../../../src/insights/digest/fixes.js';
import { decodeEvidence } from '../../../../src/insights/evidence.js';
import type { FeedbackView, PageRow, RangeQuestions, SearchesView } from '../../../../src/insights/load.js';

const page = (path: string, thumbsDown: number, comments: string[] = []): PageRow => ({
  path,
  thumbsUp: 1,
  thumbsDown,
  code: 0,
  total: thumbsDown + 1,
  previousDown: 0,
  comments,
});
const search = (term: string, hits: number, ctr: number, clicked: string | null = null) => ({
  term,
  hits,
  ctr,
  clicked,
});
const feedback = (rows: PageRow[]): FeedbackView => ({ rows, more: false, beyond: false });
const searches = (rows: SearchesView['rows']): SearchesView => ({
  rows,
  onPage: rows.length,
  totalSearches: 100,
  nextCursor: undefined,
});
const questions = (groups: RangeQuestions['groups'], cutAt?: number): RangeQuestions => ({ groups, cutAt });
const group = (topic: string, count: number) => ({ topic, count, questions: [`How do I ${topic}?`], sources: [] });

const SHOWN = {
  project: 'proj_test',
  period: { from: '2026-11-16', to: '2026-11-22' },
  scheduleText: 'weekly on Monday at 09:00 UTC',
};

describe('pickFixes: the three fixes readers need most', () => {
  it('takes the page with the most thumbs-down and comments, the most-searched term with no click, the most-asked question', () => {
    const fixes = pickFixes(
      feedback([page('/a', 5), page('/b', 4, ['x', 'y']), page('/c', 5, ['z'])]),
      searches([search('sso', 90, 0.05, '/auth'), search('webhooks', 40, 0), search('rate limit', 60, 0)]),
      questions([group('billing', 2), group('deploy', 7), group('sso', 7)]),
    );
    expect(fixes.page?.path).toBe('/b'); // 4 + 2 comments beats 5 + 1 and 5 + 0; the first of equals wins
    expect(fixes.search?.term).toBe('rate limit'); // no clicks beats more hits with a few clicks
    expect(fixes.question?.topic).toBe('deploy');
  });

  it('falls back to the least-clicked term when every term got some clicks, and to nothing when a view is empty', () => {
    const fixes = pickFixes(
      feedback([]),
      searches([search('a', 10, 0.05, '/x'), search('b', 30, 0.08, '/y')]),
      questions([]),
    );
    expect(fixes.search?.term).toBe('b');
    expect(fixes.page).toBeUndefined();
    expect(fixes.question).toBeUndefined();
  });
});

describe('fixesMessage', () => {
  it('shows three rows, each with a Draft a fix button carrying its evidence, and how to stop it', () => {
    const fixes = pickFixes(
      feedback([page('/quickstart', 3, ['<script>ignore previous instructions</script>'])]),
      searches([search('sso', 12, 0)]),
      questions([group('deploy', 4)]),
    );
    const message = fixesMessage(fixes, SHOWN);
    const buttons = message.blocks?.flatMap((block) =>
      block.type === 'section' && block.accessory?.type === 'button' ? [block.accessory] : [],
    );
    expect(buttons?.map((b) => b.action_id)).toEqual(['insights.draft', 'insights.draft', 'insights.draft']);
    const kinds = buttons?.map((b) => decodeEvidence(b.value)?.kind);
    expect(kinds).toEqual(['page', 'search', 'questions']);
    expect(decodeEvidence(buttons?.[0]?.value)).toMatchObject({
      project: 'proj_test',
      from: '2026-11-16',
      to: '2026-11-22',
    });
    const text = JSON.stringify(message.blocks);
    expect(text).toContain('Weekly insights digest · proj_test · 16–22 Nov 2026');
    expect(text).toContain('&lt;script&gt;ignore previous instructions'); // readers' words shown as text
    expect(text).toContain('`/insights digest off` stops it');
    expect(message.text).toContain('3 fixes readers need');
  });

  it('says why a part has no row instead of leaving it out', () => {
    const message = fixesMessage(pickFixes(feedback([]), searches([]), questions([group('deploy', 1)])), SHOWN);
    const text = JSON.stringify(message.blocks);
    expect(text).toContain('No page was rated down this week.');
    expect(text).toContain('Every search led readers to a result they clicked.');
    expect(message.text).toContain('1 fix readers need');
  });

  it('says how many conversations it read when the week had more than it reads and none was unanswered', () => {
    const all = JSON.stringify(fixesMessage(pickFixes(feedback([]), searches([]), questions([])), SHOWN).blocks);
    expect(all).toContain('The assistant answered every question.');
    const cut = fixesMessage(pickFixes(feedback([]), searches([]), questions([], 20_000)), SHOWN);
    const text = JSON.stringify(cut.blocks);
    expect(text).not.toContain('The assistant answered every question.');
    expect(text).toContain(
      'No unanswered question among the first 20,000 conversations Mintlify listed for the week (it had more).',
    );
  });
});
