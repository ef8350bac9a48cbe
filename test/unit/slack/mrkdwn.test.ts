import { describe, expect, it } from 'vitest';
import {
  escapeMrkdwn,
  inlineCode,
  isHttpsUrl,
  plainLabel,
  quote,
  safeLink,
  truncate,
} from '../../../src/slack/mrkdwn.js';

const ZWSP = '\u200B';

describe('escapeMrkdwn', () => {
  it.each([
    ['ampersand', 'R&D', 'R&amp;D'],
    ['angle brackets', 'a < b > c', 'a &lt; b &gt; c'],
    ['an entity-looking string (escaped once, not decoded)', '&lt;', '&amp;lt;'],
    ['a user link', '<@U123>', '&lt;@U123&gt;'],
    ['a URL link with label', '<https://evil.test|click>', '&lt;https://evil.test|click&gt;'],
    ['plain text', 'Fix the *quickstart* page', 'Fix the *quickstart* page'],
    ['an empty string', '', ''],
  ])('escapes %s', (_case, input, expected) => {
    expect(escapeMrkdwn(input)).toBe(expected);
  });

  it.each([
    '<!channel>',
    '<!here>',
    '<!everyone>',
    '<!subteam^S123>',
    '<!subteam^S123|@team>',
    '<!date^1392734382^x|y>',
  ])('neutralises the special mention %s', (mention) => {
    const out = escapeMrkdwn(`hey ${mention} look`);
    expect(out).not.toContain('<');
    expect(out).not.toContain('>');
    expect(out).toContain('&lt;!');
  });

  it.each([
    ['@channel', `@${ZWSP}channel`],
    ['@here', `@${ZWSP}here`],
    ['@everyone', `@${ZWSP}everyone`],
    ['@Channel', `@${ZWSP}Channel`],
    ['@HERE!', `@${ZWSP}HERE!`],
    ['ping @here, please', `ping @${ZWSP}here, please`],
    ['@here\n@channel', `@${ZWSP}here\n@${ZWSP}channel`],
  ])('breaks the bare broadcast %j', (input, expected) => {
    expect(escapeMrkdwn(input)).toBe(expected);
  });

  it.each(['@channels', '@hereafter', '@everyones', '@alice', 'email@example.com'])('leaves %j as it is', (input) => {
    expect(escapeMrkdwn(input)).toBe(input);
  });
});

/** Every character that reorders what follows it on screen (embeddings, overrides, isolates), and their ends. */
const BIDI = ['\u202A', '\u202B', '\u202C', '\u202D', '\u202E', '\u2066', '\u2067', '\u2068', '\u2069'];
const CONTROLS = ['\u0000', '\u0007', '\u0008', '\u000B', '\u000C', '\u001B', '\u007F', '\u0085', '\u009B'];
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
const LYING = /[\u202A-\u202E\u2066-\u2069\u0000-\u0008\u000B-\u001F\u007F-\u009F]/;

describe('text that cannot lie about itself', () => {
  it.each(BIDI.map((c) => [c.codePointAt(0)?.toString(16), c]))(
    'shows U+%s as a mark instead of obeying it',
    (_, c) => {
      const out = escapeMrkdwn(`invoice${c}fdp.exe`);
      expect(out).not.toMatch(LYING);
      expect(out).toBe('invoice\uFFFDfdp.exe');
    },
  );

  it.each(CONTROLS.map((c) => [c.codePointAt(0)?.toString(16), c]))('shows the control U+%s as a mark', (_, c) => {
    expect(escapeMrkdwn(`a${c}b`)).toBe('a\uFFFDb');
  });

  it('keeps line breaks and tabs; a carriage return is a line break', () => {
    expect(escapeMrkdwn('a\tb\nc\r\nd\re')).toBe('a\tb\nc\nd\ne');
  });

  it('neutralises them in every echo: quotes, inline code, link labels, plain labels', () => {
    const typed = 'Fix \u202Etxt.exe\u202C and \u2067this\u2069\u001B[31m';
    for (const out of [quote(typed), inlineCode(typed), safeLink('https://x.test/', typed), plainLabel(typed, 50)]) {
      expect(out).not.toMatch(LYING);
    }
  });
});

describe('truncate', () => {
  // Cuts at emoji, flags and other graphemes: graphemes.test.ts, next to headOf.
  it.each([
    ['shorter than max', 'hello', 10, 'hello'],
    ['exactly max', 'hello', 5, 'hello'],
    ['longer than max', 'hello world', 6, 'hello…'],
    ['max of one', 'hello', 1, '…'],
  ])('%s', (_case, text, max, expected) => {
    expect(truncate(text, max)).toBe(expected);
  });

  it('never leaves a lone surrogate', () => {
    const text = '𝒜'.repeat(50);
    for (let max = 1; max <= 51; max++) {
      const out = truncate(text, max);
      expect(out).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
      expect(Array.from(out).length).toBeLessThanOrEqual(max);
    }
  });
});

describe('inlineCode', () => {
  it.each([
    ['plain text', 'proj_docs', '`proj_docs`'],
    ['a backtick, which would end the span', 'a`b', "`a'b`"],
    ['a line break, which would end the span', 'line one\n  line two', '`line one line two`'],
    ['markup and a broadcast', '<!here> & co', '`&lt;!here&gt; &amp; co`'],
    ['an @channel typed bare', '@channel', '`@\u200Bchannel`'],
  ])('keeps %s inside one escaped span', (_case, text, expected) => {
    expect(inlineCode(text)).toBe(expected);
  });

  it('shortens to the limit with an ellipsis, never inside an entity', () => {
    expect(inlineCode('x'.repeat(50), 10)).toBe(`\`${'x'.repeat(9)}…\``);
    expect(inlineCode('abcdefgh&&&', 10)).toBe('`abcdefgh…`');
  });
});

describe('quote', () => {
  it('quotes every line of multi-line text, escaped', () => {
    expect(quote('first <b>\nsecond & third\n\nfourth')).toBe('>first &lt;b&gt;\n>second &amp; third\n>\n>fourth');
  });

  it('trims surrounding whitespace before quoting', () => {
    expect(quote('  \n hello \n ')).toBe('>hello');
  });

  it('cannot be broken out of: a line starting with > stays inside the quote', () => {
    expect(quote('a\n> not a nested quote\n<!channel>')).toBe('>a\n>&gt; not a nested quote\n>&lt;!channel&gt;');
  });

  it('neutralises broadcasts in quoted text', () => {
    expect(quote('@here look')).toBe(`>@${ZWSP}here look`);
  });

  it('truncates before escaping, to the given length', () => {
    expect(quote('abcdefgh', 5)).toBe('>abcd…');
    expect(quote('x'.repeat(600))).toBe(`>${'x'.repeat(499)}…`);
  });
});

describe('safeLink', () => {
  it.each([
    ['a plain https URL', 'https://github.com/acme/docs/pull/42', undefined, '<https://github.com/acme/docs/pull/42>'],
    [
      'a labelled link',
      'https://github.com/acme/docs/pull/42',
      'PR #42',
      '<https://github.com/acme/docs/pull/42|PR #42>',
    ],
    ['a query string', 'https://x.test/a?b=1&c=2', undefined, '<https://x.test/a?b=1&c=2>'],
    ['a | in the URL', 'https://x.test/a|b', 'l', '<https://x.test/a%7Cb|l>'],
    ['a > in the URL', 'https://x.test/a>b', 'l', '<https://x.test/a%3Eb|l>'],
    ['a < in the query', 'https://x.test/?q=<!channel>', 'l', '<https://x.test/?q=%3C!channel%3E|l>'],
    ['a space in the path', 'https://x.test/a b', 'l', '<https://x.test/a%20b|l>'],
    ['a newline in the URL', 'https://x.test/a\nb', 'l', '<https://x.test/ab|l>'],
    ['upper-case scheme', 'HTTPS://X.TEST/A', 'l', '<https://x.test/A|l>'],
  ])('links %s', (_case, url, label, expected) => {
    expect(safeLink(url, label)).toBe(expected);
  });

  it.each([
    ['a | in the label', 'a|b', '<https://x.test/|a¦b>'],
    ['a > in the label', 'a>b', '<https://x.test/|a&gt;b>'],
    ['a broadcast in the label', '<!channel> @here', `<https://x.test/|&lt;!channel&gt; @${ZWSP}here>`],
    ['an ampersand in the label', 'Q&A', '<https://x.test/|Q&amp;A>'],
  ])('escapes %s', (_case, label, expected) => {
    expect(safeLink('https://x.test/', label)).toBe(expected);
  });

  it.each([
    ['javascript:', 'javascript:alert(1)'],
    ['javascript: with https inside', 'javascript://https://x.test/%0Aalert(1)'],
    ['http:', 'http://github.com/acme/docs/pull/1'],
    ['data:', 'data:text/html,<script>alert(1)</script>'],
    ['mailto:', 'mailto:a@b.test'],
    ['a relative path', '/acme/docs/pull/1'],
    ['a bare host', 'github.com/acme'],
    ['a malformed URL', 'https://'],
    ['an empty string', ''],
    ['null', null],
    ['undefined', undefined],
  ])('gives undefined for %s', (_case, url) => {
    expect(safeLink(url, 'label')).toBeUndefined();
    expect(safeLink(url)).toBeUndefined();
  });

  it.each([
    ['https://x.test', true],
    ['http://x.test', false],
    ['javascript:alert(1)', false],
    ['not a url', false],
  ])('isHttpsUrl(%j) is %s', (url, expected) => {
    expect(isHttpsUrl(url)).toBe(expected);
  });
});
