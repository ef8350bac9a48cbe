import { describe, expect, it } from 'vitest';
import { csvCell, csvDocument, toCsv } from '../../../src/visitors/csv.js';

describe('csv', () => {
  it('leaves plain cells alone and quotes commas, quotes and line breaks (RFC 4180)', () => {
    expect(csvCell('/quickstart')).toBe('/quickstart');
    expect(csvCell(12345)).toBe('12345');
    expect(csvCell('/a,b')).toBe('"/a,b"');
    expect(csvCell('/say "hi"')).toBe('"/say ""hi"""');
    expect(csvCell('/a\nb')).toBe('"/a\nb"');
    expect(csvCell('/a\r\nb')).toBe('"/a\r\nb"');
  });

  it('defuses cells a spreadsheet would run as formulas', () => {
    expect(csvCell('=HYPERLINK("http://x")')).toBe(`"'=HYPERLINK(""http://x"")"`);
    expect(csvCell('+1')).toBe("'+1");
    expect(csvCell('-1+2')).toBe("'-1+2");
    expect(csvCell('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvCell('\tcmd')).toBe("'\tcmd");
    expect(csvCell('/=not-first')).toBe('/=not-first');
  });

  it('writes header, rows in order and a final totals line with CRLF', () => {
    const csv = toCsv(
      [
        { path: '/', human: 10, ai: 2, total: 11 },
        { path: '/a,b', human: 1, ai: 0, total: 1 },
      ],
      { human: 11, ai: 2, total: 12 },
    );
    expect(csv).toBe('\uFEFFpath,human,ai,total\r\n/,10,2,11\r\n"/a,b",1,0,1\r\n(site total),11,2,12\r\n');
  });

  it('writes just header and totals when there are no rows', () => {
    expect(toCsv([], { human: 0, ai: 0, total: 0 })).toBe('\uFEFFpath,human,ai,total\r\n(site total),0,0,0\r\n');
  });

  it('starts with UTF-8’s byte order mark, so a spreadsheet reads non-ASCII paths and terms as written', () => {
    const csv = csvDocument([['term'], ['über'], ['日本語のドキュメント'], ['=1+1']]);
    expect(csv).toBe("\uFEFFterm\r\nüber\r\n日本語のドキュメント\r\n'=1+1\r\n");
    expect(Buffer.from(csv, 'utf8').subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
  });
});
