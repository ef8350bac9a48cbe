// Slack text: where it may be cut (between graphemes) and how it is escaped, neutralised and shortened, in one kit
// every feature's words stand on.

/**
 * Where text may be cut: between graphemes (what a reader sees as one character), never inside an emoji, a flag,
 * a family or a letter with its combining marks, and so never leaving a lone surrogate. Lengths count code points,
 * as the rest of the app's limits do (an emoji such as 😀 is one character). Only a short stretch around the cut
 * is segmented: `Intl.Segmenter` is slow over long texts.
 */
const segmenter = new Intl.Segmenter('en', { granularity: 'grapheme' });

/** Characters as the app's limits count them: code points. */
export const codePoints = (text: string): number => {
  let n = 0;
  for (const _ of text) n++;
  return n;
};

const isHigh = (code: number) => code >= 0xd800 && code <= 0xdbff;

/** Code-unit index after the first `count` code points of `text`. */
function afterCodePoints(text: string, count: number): number {
  let i = 0;
  for (let n = 0; n < count && i < text.length; n++) i += isHigh(text.charCodeAt(i)) ? 2 : 1;
  return Math.min(i, text.length);
}

/** A grapheme boundary at or before `at`: the start of a plain Latin letter, digit or space (or the text's start). */
function safeStart(text: string, at: number): number {
  for (let i = at; i > 0; i--) if (text.charCodeAt(i) < 0x300 && text.charCodeAt(i) !== 0x0a) return i;
  return 0;
}

/** The grapheme boundaries of `text` between `from` and `to` (code-unit indices), found in a short window. */
function boundaries(text: string, from: number, to: number): number[] {
  const start = safeStart(text, Math.max(0, from - 32));
  const end = Math.min(text.length, to + 32);
  const found = Array.from(segmenter.segment(text.slice(start, end)), (s) => start + s.index);
  return [...found, end].filter((at) => at >= from && at <= to);
}

/** The longest beginning of `text` of at most `max` code points that ends between graphemes. */
export function headOf(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = afterCodePoints(text, max);
  if (cut >= text.length) return text;
  const before = boundaries(text, Math.max(0, cut - 64), cut);
  return text.slice(0, before.at(-1) ?? safeStart(text, cut));
}

/** The longest end of `text` of at most `max` code points that starts between graphemes. */
export function tailOf(text: string, max: number): string {
  if (text.length <= max) return text;
  const total = codePoints(text);
  if (total <= max) return text;
  const cut = afterCodePoints(text, total - max);
  const after = boundaries(text, cut, Math.min(text.length, cut + 64));
  return text.slice(after[0] ?? text.length);
}

/** Embeddings, overrides and isolates (and their ends): text that shows in another order than it is read. */
const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069]/g;
/** Control characters (C0 but tab and line feed, DEL, C1): terminal escapes, bells, invisible breaks. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching them is the point
const CONTROLS = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g;

/**
 * Text that cannot lie about itself: a bidirectional control or a control character is shown as U+FFFD (�), so
 * `invoice\u202Efdp.exe` cannot pass for `invoiceexe.pdf`; a carriage return is a line break.
 */
export function neutralise(text: string): string {
  return text.replace(/\r\n?/g, '\n').replace(BIDI_CONTROLS, '\uFFFD').replace(CONTROLS, '\uFFFD');
}

/** Service text that must stay on one line (a path, a URL): neutralised, each run of line breaks one space. */
export function oneLine(text: string): string {
  return neutralise(text).replace(/\s*[\n\u2028\u2029]+\s*/g, ' ');
}

/**
 * The one place user text is made safe for Slack mrkdwn: control and bidirectional characters neutralised
 * (`neutralise`), mrkdwn's control characters escaped and broadcast mentions (`<!channel>`, `<!here>`,
 * `<!everyone>`, `<!subteam^…>`) neutralised, even when typed bare.
 */
export function escapeMrkdwn(text: string): string {
  return neutralise(text)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/@(channel|here|everyone)\b/gi, '@\u200B$1');
}

/**
 * Escaped mrkdwn (`escapeMrkdwn`, `quote`) as standard Markdown that shows it as written: Markdown's own punctuation
 * backslash-escaped, so a link, a heading, a list or emphasis a person typed stays text in a stream's `markdown_text`
 * (Slack's markdown block renders them). Mentions (`<@U…>`), the quote's `>`, entities and intraword `_` are kept.
 */
export function mrkdwnAsMarkdown(text: string): string {
  return text.replace(/[\\`*[\]()#+\-.!|~{}]|(?<![\p{L}\p{N}])_|_(?![\p{L}\p{N}])/gu, '\\$&');
}

/** Shortens to `max` characters with an ellipsis, cut between graphemes (`headOf` above). */
export function truncate(text: string, max: number): string {
  if (text.length <= max || Array.from(text).length <= max) return text;
  return `${headOf(text, Math.max(0, max - 1))}…`;
}

/**
 * Cuts mrkdwn that is already escaped to `max` characters with an ellipsis, never inside an entity (`&amp;`) or a
 * character. Escaping can make text up to 5× longer, so Slack's limits are applied to the escaped result.
 */
export function clipEscaped(text: string, max: number): string {
  const cut = truncate(text, max);
  return cut === text ? text : cut.replace(/&[a-z]*…$/, '…');
}

/** User or service text for a `plain_text` field (a title, a label, a header): neutralised, at most `max` characters. */
export function plainLabel(text: string, max: number): string {
  return truncate(neutralise(text), max);
}

/** User text as one escaped mrkdwn string of at most `max` characters: for notification fallbacks and labels. */
export function plainText(text: string, max: number): string {
  return clipEscaped(escapeMrkdwn(text), max);
}

/**
 * Text from a person or a service as one inline-code span: escaped like any mrkdwn, at most `max` characters, with
 * backticks and line breaks neutralised (either would end the span early and let the rest render as mrkdwn).
 */
export function inlineCode(text: string, max = 100): string {
  return `\`${plainText(text.replace(/`/g, "'").replace(/\s*[\r\n]+\s*/g, ' '), max)}\``;
}

/** Quotes (possibly multi-line) user text as a mrkdwn block quote, escaped. */
export function quote(text: string, max = 500): string {
  return escapeMrkdwn(truncate(text.trim(), max))
    .split('\n')
    .map((line) => `>${line}`)
    .join('\n');
}

/** Slack refuses a button `url` longer than this. */
export const MAX_URL_CHARS = 3_000;

/**
 * An https URL as Slack should receive it (parsed: spaces encoded, tabs and newlines dropped; Slack's link
 * delimiters encoded), or `undefined` for anything else or anything longer than `max`, so callers show plain text
 * instead of a link.
 */
export function safeUrl(url: string | null | undefined, max = MAX_URL_CHARS): string | undefined {
  if (!url || !isHttpsUrl(url)) return undefined;
  const href = new URL(url).href.replace(/[<>|]/g, (c) => encodeURIComponent(c));
  return href.length <= max ? href : undefined;
}

/** A mrkdwn link only for https URLs; anything else gives `undefined` so callers show plain text. */
export function safeLink(url: string | null | undefined, label?: string): string | undefined {
  const target = safeUrl(url);
  if (!target) return undefined;
  return label ? `<${target}|${escapeMrkdwn(label).replace(/\|/g, '¦')}>` : `<${target}>`;
}

export function isHttpsUrl(url: string): boolean {
  try {
    return new URL(url).protocol === 'https:';
  } catch {
    return false;
  }
}

/** `<@U123>` for a real user id; anything else is shown as escaped text. */
export function userMention(userId: string): string {
  return /^[UW][A-Z0-9]{1,20}$/.test(userId) ? `<@${userId}>` : escapeMrkdwn(truncate(userId, 30));
}

/** A time of day Slack shows on each reader's clock (`<!date>`), with its UTC time for clients that cannot. */
export function readerTime(ms: number): string {
  return `<!date^${Math.floor(ms / 1000)}^{time}|${new Date(ms).toISOString().slice(11, 16)} UTC>`;
}
