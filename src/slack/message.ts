import type { types } from '@slack/bolt';
import type { MessageBlock } from './data-blocks.js';

/** A Slack message as every feature builds it: Block Kit and the plain-text fallback notifications show. */
export interface Message {
  text: string;
  blocks?: MessageBlock[];
}

/** Slack's limit on a section's text (and on any text object but a few shorter ones). */
export const SECTION_MAX_CHARS = 3_000;

/** A section of mrkdwn text. */
export function section(text: string): types.SectionBlock {
  return { type: 'section', text: { type: 'mrkdwn', text } };
}

/** A private one-liner with the same text as fallback. */
export function notice(text: string): Message {
  return { text, blocks: [section(text)] };
}
