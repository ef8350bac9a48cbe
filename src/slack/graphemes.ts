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
