/**
 * Where text may be cut: between graphemes (what a reader sees as one character), never inside an emoji, a flag,
 * a family or a letter with its combining marks, and so never leaving a lone surrogate. Lengths count code points,
 * as the rest of the app's limits do (an emoji such as 😀 is one character).
 */
const segmenter = new Intl.Segmenter('en', { granularity: 'grapheme' });

/** Characters as the app's limits count them: code points. */
export const codePoints = (text: string): number => {
  let n = 0;
  for (const _ of text) n++;
  return n;
};

/** The longest beginning of `text` of at most `max` code points that ends between graphemes. */
export function headOf(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = 0;
  let size = 0;
  for (const { segment, index } of segmenter.segment(text)) {
    size += codePoints(segment);
    if (size > max) break;
    end = index + segment.length;
  }
  return text.slice(0, end);
}

/** The longest end of `text` of at most `max` code points that starts between graphemes. */
export function tailOf(text: string, max: number): string {
  if (text.length <= max) return text;
  // Only the end is segmented; its first segment may be part of a grapheme that starts earlier, so it is not used.
  const from = Math.max(0, text.length - 2 * max - 64);
  const all = Array.from(segmenter.segment(text.slice(from)));
  let start = text.length;
  let size = 0;
  for (let i = all.length - 1; i >= (from > 0 ? 1 : 0); i--) {
    const { segment, index } = all[i] as Intl.SegmentData;
    size += codePoints(segment);
    if (size > max) break;
    start = from + index;
  }
  return text.slice(start);
}
