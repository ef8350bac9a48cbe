import { describe, expect, it } from 'vitest';
import { pagesTable, TABLE_PAGE_SIZE } from '../../../src/visitors/data-table.js';
import { blockKitProblems } from '../../../tools/slack-standin/index.js';

const row = (path: string, total: number, ai = 1) => ({ path, total, human: total - ai, ai });
const rows = (n: number, path = (i: number) => `/p${i}`) => Array.from({ length: n }, (_, i) => row(path(i), n - i));

describe('the report’s rows as a data table', () => {
  it('has a header and one row per page: the path as text, the numbers as numbers with their formatted text', () => {
    const table = pagesTable([row('/quickstart', 12_345, 2_469), row('/api/`x`', 7, 0), row('', 0, 0)], 'Pages');
    expect(table?.caption).toBe('Pages');
    expect(table?.rows[0]?.map((c) => c.text)).toEqual(['Page', 'Visitors', 'Human', 'AI', 'AI share']);
    expect(table?.rows[1]).toEqual([
      { type: 'raw_text', text: '/quickstart' },
      { type: 'raw_number', value: 12_345, text: '12,345' },
      { type: 'raw_number', value: 9_876, text: '9,876' },
      { type: 'raw_number', value: 2_469, text: '2,469' },
      { type: 'raw_number', value: 20, text: '20.0%' },
    ]);
    // The share sorts by its value; a page without visitors has none, shown as a dash.
    expect(table?.rows[3]?.[0]).toEqual({ type: 'raw_text', text: '/' });
    expect(table?.rows[3]?.[4]).toEqual({ type: 'raw_number', value: 0, text: '—' });
    expect(table?.row_header_column_index).toBe(0);
    expect(table?.page_size).toBe(3);
    expect(blockKitProblems([table])).toEqual([]);
  });

  it('keeps the words of a path that reads as Slack markup, between ‹ ›, so a shared table pings and links nobody', () => {
    const table = pagesTable([row('/x <!channel> <@U1|bob> <https://e.x|go> a<b', 3)], 'Pages');
    expect(table?.rows[1]?.[0]).toEqual({ type: 'raw_text', text: '/x ‹!channel› ‹@U1|b…https://e.x|go› a<b' });
    expect(pagesTable([row('/a<b>c', 3)], 'Pages')?.rows[1]?.[0]?.text).toBe('/a‹b›c');
  });

  it('pages by 10 and takes 100 rows of 40-character paths; 101 rows or none make no table (the text one is sent)', () => {
    const full = pagesTable(
      rows(100, (i) => `/${String(i).padStart(39, 'x')}`),
      'Pages',
    );
    expect(full?.rows).toHaveLength(101);
    expect(full?.page_size).toBe(TABLE_PAGE_SIZE);
    expect(blockKitProblems([full])).toEqual([]);
    expect(pagesTable(rows(101), 'Pages')).toBeUndefined();
    expect(pagesTable([], 'Pages')).toBeUndefined();
  });

  it('shortens long paths as the text table does, so a page of long paths stays under 10,000 characters', () => {
    const table = pagesTable(
      rows(100, (i) => `/${'very-long-segment/'.repeat(50)}${i}`),
      'Pages',
    );
    expect(table).toBeDefined();
    expect(Array.from(String(table?.rows[1]?.[0]?.text))).toHaveLength(40);
    expect(blockKitProblems([table])).toEqual([]);
  });
});
