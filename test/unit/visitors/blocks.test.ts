import { describe, expect, it } from 'vitest';
import type { PageVisitors, VisitorsResponse } from '../../../src/mintlify/schemas.js';
import type { Message } from '../../../src/slack/message.js';
import { ACTION_IDS, buildReport, reportMessages, type VisitorsPage } from '../../../src/visitors/blocks.js';
import { decodeQuery, type ReportQuery } from '../../../src/visitors/date-range.js';
import { displayPath, PATH_WIDTH } from '../../../src/visitors/page-path.js';
import { blockKitProblems } from '../../../tools/slack-standin/index.js';
import { expectToContainAll } from '../../support/expect.js';
import { assertBlockKitLimits, buttons } from './limits.js';

const NOW = Date.parse('2026-11-22T23:05:00Z');
const QUERY: ReportQuery = { from: '2026-11-15', to: '2026-11-21', limit: 10, offset: 0 };

function rows(count: number, path = (i: number) => `/guides/page-${i}`): PageVisitors[] {
  return Array.from({ length: count }, (_, i) => ({
    path: path(i),
    human: 1000 * (count - i),
    ai: 300 * i,
    total: 1100 * (count - i),
  }));
}

function page(visitors: PageVisitors[], patch: Partial<ReportQuery> = {}, hasMore = false): VisitorsPage {
  const response: VisitorsResponse = { totals: { human: 123_456, ai: 7_890, total: 128_000 }, visitors, hasMore };
  return {
    query: { ...QUERY, limit: Math.max(1, Math.min(250, visitors.length || 10)), ...patch },
    response,
    fetchedAt: NOW,
  };
}

const joined = (texts: string[]) => texts.join('\n');

describe('buildReport', () => {
  it('shows header, totals with separators, dedup note, one row and footer', () => {
    const report = buildReport(page([{ path: '/quickstart', human: 1234, ai: 567, total: 1700 }]));
    const texts = assertBlockKitLimits(report);
    const all = joined(texts);
    expect(texts[0]).toBe('Unique visitors · 15–21 Nov 2026');
    expectToContainAll(all, [
      '*Total visitors*\n128,000',
      '*Human*\n123,456',
      '*AI*\n7,890',
      '*AI share*\n6.2%',
      'not Human + AI',
    ]);
    expect(all).toMatch(/1 {2}\/quickstart {2}1,700 {2}1,234 {2}567 {2}[█░]{10}/);
    expect(all).toContain('Rows 1–1 · dates in UTC · fetched 22 Nov 2026 23:05 UTC');
    expect(report.text).toBe('Unique visitors · 15–21 Nov 2026: 128,000 total (123,456 human, 7,890 AI).');
  });

  it('fits 250 rows with every row present, in the service order', () => {
    const visitors = rows(250);
    const report = buildReport(page(visitors, { limit: 250 }, true));
    const texts = assertBlockKitLimits(report);
    const table = texts.filter((t) => t.startsWith('```'));
    expect(table.length).toBeGreaterThan(1);
    const lines = table.flatMap((t) => t.split('\n').filter((l) => /^\s*\d+ {2}/.test(l)));
    expect(lines).toHaveLength(250);
    for (const [i, line] of lines.entries()) expect(line).toContain(`${i + 1}  /guides/page-${i} `);
  });

  it('keeps every limit with 5,000-character paths full of characters that need escaping', () => {
    const nasty = (i: number) => `/${'&<>'.repeat(1600)}\`\`\`@channel\n${'é'.repeat(100)}-${i}-end`;
    for (const count of [1, 250]) {
      const report = buildReport(page(rows(count, nasty), { limit: Math.max(1, count) }, true));
      const texts = assertBlockKitLimits(report);
      const table = texts.filter((t) => t.startsWith('```'));
      for (const t of table) {
        expect(t.match(/```/g)).toHaveLength(2);
        expect(t).not.toContain('@channel');
        expect(t).not.toMatch(/<(?!\/)/);
      }
      expect(joined(table)).toContain('…');
    }
  });

  it('keeps limits with absurd numbers and a 250-row page of them', () => {
    const huge = rows(250).map((r) => ({ ...r, human: 1e300, ai: 9.99e299, total: 1e300 }));
    const report = buildReport({
      ...page(huge, { limit: 250 }),
      response: { totals: { human: 1e300, ai: 1, total: 1e300 }, visitors: huge, hasMore: false },
    });
    assertBlockKitLimits(report);
    expect(joined(assertBlockKitLimits(report))).toContain('1.00e+300');
  });

  it('offers Next with the following offset when hasMore, Previous when not on the first page', () => {
    // Every page ends with the same three buttons.
    const rest = [ACTION_IDS.share, ACTION_IDS.csv, ACTION_IDS.chart];
    const first = buttons(buildReport(page(rows(10), { limit: 10, offset: 0 }, true)));
    expect(first.map((b) => b.action_id)).toEqual([ACTION_IDS.next, ...rest]);
    expect(decodeQuery(first[0]?.value, NOW)).toEqual({ ...QUERY, offset: 10 });

    const middle = buttons(buildReport(page(rows(10), { limit: 10, offset: 10 }, true)));
    expect(middle.map((b) => b.action_id)).toEqual([ACTION_IDS.prev, ACTION_IDS.next, ...rest]);
    expect(decodeQuery(middle[0]?.value, NOW)?.offset).toBe(0);
    expect(decodeQuery(middle[1]?.value, NOW)?.offset).toBe(20);
    expect(decodeQuery(middle[2]?.value, NOW)?.offset).toBe(10);

    const last = buttons(buildReport(page(rows(3), { limit: 10, offset: 20 }, false)));
    expect(last.map((b) => b.action_id)).toEqual([ACTION_IDS.prev, ...rest]);
    for (const b of last) expect(decodeQuery(b.value, NOW)).toBeDefined();
  });

  it('numbers rows from the offset and says which rows are shown', () => {
    const texts = assertBlockKitLimits(buildReport(page(rows(10), { limit: 10, offset: 10 }, true)));
    expect(joined(texts)).toContain('Rows 11–20');
    expect(joined(texts)).toMatch(/\n11 {2}\/guides\/page-0/);
  });

  it('says there are no visitors, still with header and totals', () => {
    const report = buildReport({
      query: QUERY,
      response: { totals: { human: 0, ai: 0, total: 0 }, visitors: [], hasMore: false },
      fetchedAt: NOW,
    });
    const texts = assertBlockKitLimits(report);
    expect(texts[0]).toBe('Unique visitors · 15–21 Nov 2026');
    expect(joined(texts)).toContain('No visitors in this range');
    expect(joined(texts)).toContain('*AI share*\n—');
    expect(joined(texts)).not.toContain('```');
    expect(buttons(report).map((b) => b.action_id)).toEqual([ACTION_IDS.share, ACTION_IDS.csv, ACTION_IDS.chart]);
  });

  it('says a page past the end is empty and offers Previous', () => {
    const report = buildReport(page([], { limit: 10, offset: 30 }));
    expect(joined(assertBlockKitLimits(report))).toContain('past the end');
    expect(buttons(report)[0]?.action_id).toBe(ACTION_IDS.prev);
  });

  it('a shared page past the end says so without pointing at a Previous button it does not have', () => {
    const said = joined(assertBlockKitLimits(buildReport(page([], { offset: 30 }), { sharedBy: 'U123ALICE' })));
    expect(said).toContain('past the end');
    expect(said).not.toContain('Previous');
  });

  it('the shared copy names who shared it and has no buttons', () => {
    const report = buildReport(page(rows(5)), { sharedBy: 'U123ALICE' });
    const texts = assertBlockKitLimits(report);
    expect(buttons(report)).toEqual([]);
    expect(joined(texts)).toContain('Shared by <@U123ALICE>');
    const odd = joined(assertBlockKitLimits(buildReport(page(rows(1)), { sharedBy: '<!here>' })));
    expect(odd).not.toContain('<!here>');
  });

  it('formats headers for single days, cross-month and cross-year ranges', () => {
    const header = (from: string, to: string) => assertBlockKitLimits(buildReport(page(rows(1), { from, to })))[0];
    expect(header('2026-11-21', '2026-11-21')).toBe('Unique visitors · 21 Nov 2026');
    expect(header('2026-10-28', '2026-11-03')).toBe('Unique visitors · 28 Oct – 3 Nov 2026');
    expect(header('2025-12-28', '2026-01-03')).toBe('Unique visitors · 28 Dec 2025 – 3 Jan 2026');
  });
});

describe('displayPath', () => {
  it('keeps short paths and shortens long ones around an ellipsis', () => {
    expect(displayPath('/quickstart')).toBe('/quickstart');
    const long = `/api-reference/${'x'.repeat(100)}/endpoint`;
    const shown = displayPath(long);
    expect(Array.from(shown)).toHaveLength(PATH_WIDTH);
    expect(shown.startsWith('/api-reference/')).toBe(true);
    expect(shown.endsWith('/endpoint')).toBe(true);
    expect(shown).toContain('…');
  });

  it('never splits emoji and neutralises backticks and line breaks', () => {
    const shown = displayPath(`/${'😀'.repeat(100)}`);
    expect(Array.from(shown)).toHaveLength(PATH_WIDTH);
    expect(shown).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
    expect(displayPath('/a```b\nc')).toBe('/aˋˋˋb c');
  });

  it('shows bidirectional and C1 controls as �, so a path cannot pass for another (the data table shows it raw)', () => {
    expect(displayPath('/invoice\u202Efdp.exe')).toBe('/invoice\uFFFDfdp.exe');
    expect(displayPath('/a\u0085b\u2066c\td')).toBe('/a\uFFFDb\uFFFDc d');
  });
});

describe('reportMessages', () => {
  const types = (message: { blocks?: { type: string }[] } | undefined) => message?.blocks?.map((b) => b.type);

  it('draws the rows as a data table in the same report (buttons, footer without the bar legend), the text one beside it', () => {
    const { table, text } = reportMessages(page(rows(25), { limit: 25, offset: 25 }, true));
    expect(types(table)).toEqual(['header', 'section', 'context', 'divider', 'data_table', 'context', 'actions']);
    const block = table?.blocks?.find((b) => b.type === 'data_table') as { caption: string; rows: unknown[] };
    expect(block.caption).toBe('Unique visitors per page');
    expect(block.rows).toHaveLength(26);
    expect(JSON.stringify(table?.blocks)).not.toContain('bar: █ human ░ AI');
    expect(buttons(table as Message)).toEqual(buttons(text));
    expect(table?.text).toBe(text.text);
    expect(text).toEqual(buildReport(page(rows(25), { limit: 25, offset: 25 }, true)));
    expect(blockKitProblems(table?.blocks ?? [])).toEqual([]);
  });

  it('has only the text report without rows, or with more rows than a data table holds', () => {
    expect(reportMessages(page([], { offset: 30 })).table).toBeUndefined();
    const many = reportMessages(page(rows(150), { limit: 150 }, true));
    expect(many.table).toBeUndefined();
    expect(many.text).toEqual(buildReport(page(rows(150), { limit: 150 }, true)));
  });

  it('the shared copy has the table and says who shared it, with no buttons', () => {
    const { table } = reportMessages(page(rows(5)), { sharedBy: 'U123ALICE' });
    expect(types(table)).toContain('data_table');
    expect(JSON.stringify(table?.blocks)).toContain('Shared by <@U123ALICE>');
    expect(buttons(table as Message)).toEqual([]);
  });
});

describe('buildReport with the previous period', () => {
  it('shows each total’s change and the AI share’s change in points, naming the period compared with', () => {
    const report = buildReport(
      {
        query: QUERY,
        response: { totals: { human: 900, ai: 100, total: 950 }, visitors: [], hasMore: false },
        fetchedAt: NOW,
      },
      { previous: { human: 1000, ai: 50, total: 1000 } },
    );
    const text = JSON.stringify(report.blocks);
    expectToContainAll(text, [
      '*Total visitors*\\n950  ▼ 5.0 %',
      '*Human*\\n900  ▼ 10.0 %',
      '*AI*\\n100  ▲ 100.0 %',
      // 100/950 = 10.5 % against 50/1000 = 5.0 %: 5.5 points.
      '*AI share*\\n10.5%  ▲ 5.5 pts',
      'Changes compare with the previous period, ',
    ]);
  });

  it('shows no changes (and no comparison note) when the previous period is unknown', () => {
    const text = JSON.stringify(buildReport(page(rows(3), { limit: 10, offset: 0 }, false)).blocks);
    expect(text).not.toMatch(/[▲▼]|previous period/);
  });
});
