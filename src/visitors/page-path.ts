import { headOf, oneLine, tailOf } from '../slack/mrkdwn.js';

// A page's path as one table cell, apart from the tables that show it, so the data table does not stand on the
// monospace fallback.

/** Longest path shown in a table, in characters; longer ones keep their start and end around `…`. */
export const PATH_WIDTH = 40;

/**
 * A path as one table cell: one line (`oneLine`: line breaks a space, other control and bidirectional characters
 * `�`, as the data table shows text raw), tabs a space, backticks (which could close the code block) `ˋ`, and long
 * paths keep their beginning and end around an ellipsis.
 */
export function displayPath(path: string, max = PATH_WIDTH): string {
  const clean = oneLine(path).replace(/\t/g, ' ').replace(/`/g, 'ˋ');
  if (charCount(clean) <= max) return clean;
  const head = Math.ceil((max - 1) / 2);
  const tail = max - 1 - head;
  return `${headOf(clean, head)}…${tail > 0 ? tailOf(clean, tail) : ''}`;
}

/** Characters as a monospace cell counts them (code points). */
export function charCount(text: string): number {
  return Array.from(text).length;
}
