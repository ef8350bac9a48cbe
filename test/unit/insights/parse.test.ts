import { describe, expect, it } from 'vitest';
import { parseInsightsCommand } from '../../../src/insights/parse.js';

const NOW = Date.parse('2026-11-28T10:00:00Z');

describe('/insights words', () => {
  it('reads the view anywhere and the rest as /visitors does', () => {
    expect(parseInsightsCommand('feedback 30d top 5', NOW, 'UTC')).toEqual({
      kind: 'page',
      page: { view: 'feedback', query: { from: '2026-10-30', to: '2026-11-28', limit: 5, offset: 0 } },
    });
    expect(parseInsightsCommand('--project proj_b last week Searches', NOW, 'Pacific/Auckland')).toMatchObject({
      page: {
        view: 'searches',
        query: { project: 'proj_b', tz: 'Pacific/Auckland', from: '2026-11-16', to: '2026-11-22' },
      },
    });
    expect(parseInsightsCommand('', NOW, 'UTC')).toMatchObject({ page: { view: 'digest', query: { limit: 10 } } });
    expect(parseInsightsCommand('questions help', NOW, 'UTC')).toEqual({ kind: 'help' });
  });

  it('reads smart quotes and dashes as typed', () => {
    expect(parseInsightsCommand('“Feedback” —project proj_b 2026-11-01–2026-11-08', NOW, 'UTC')).toMatchObject({
      page: { view: 'feedback', query: { project: 'proj_b', from: '2026-11-01', to: '2026-11-08' } },
    });
  });

  it.each([
    ['feedback searches', 'one of'],
    ['feedback chart', 'Charts are for'],
    ['questions top 50', 'between 1 and 20'],
    ['feedback last fortnight', "I don't understand"],
    // The example is /insights' own, not /visitors'.
    ['--project', '`--project` needs a project id, e.g. `/insights --project proj_b 30d`.'],
    // Words that name an object's own machinery are words like any other.
    ['constructor', "I don't understand"],
    ['__proto__ feedback', "I don't understand"],
    ['toString 7d', "I don't understand"],
  ])('explains %s', (text, problem) => {
    const parsed = parseInsightsCommand(text, NOW, 'UTC');
    expect(parsed.kind === 'invalid' && parsed.problem).toContain(problem);
  });
});
