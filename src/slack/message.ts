import type { MessageBlock } from './data-blocks.js';

/** A Slack message as every feature builds it: Block Kit and the plain-text fallback notifications show. */
export interface Message {
  text: string;
  blocks?: MessageBlock[];
}
