import type { ConversationsRepliesResponse } from '@slack/web-api';
import type { Deps } from '../deps.js';
import { decodeSlackText, mentionedUsers } from '../slack/decode.js';
import { classifySlackError } from '../slack/errors.js';
import { codePoints, tailOf, truncate } from '../slack/mrkdwn.js';
import { displayNames } from '../slack/user-names.js';
import { postedWords } from './posted-words.js';
import { maskSecrets } from './secret-text.js';

/**
 * The most thread text a prompt carries as context. The newest messages are kept; older ones are left out
 * whole (the newest one alone is cut to fit). About 2,000 tokens: enough for a discussion, small next to the task.
 */
export const THREAD_CONTEXT_MAX_CHARS = 8_000;
/** Pages of `conversations.replies` read at most (200 messages each). */
const MAX_PAGES = 5;

export interface ThreadContext {
  /** Appended to the instruction sent to the agent, clearly marked as context. */
  text: string;
  /** What the status line says about it (how many messages, the cap). */
  note: string;
}

interface ThreadMessage {
  ts?: string;
  user?: string;
  bot_id?: string;
  username?: string;
  subtype?: string;
  /** Slack hides it (a deleted thread root's tombstone: "This message was deleted."). */
  hidden?: boolean;
  text?: string;
  files?: { name?: string; title?: string; permalink?: string }[];
  /** What an app posted instead of text (`postedWords` reads them). */
  attachments?: unknown;
  blocks?: unknown;
}

export interface ThreadSpot {
  channel: string;
  threadTs: string;
  /** The message asking: only messages before it are context. */
  beforeTs: string;
  /** This bot, whose own posts (status lines, usage) are not context. */
  botUserId?: string | undefined;
  botId?: string | undefined;
}

/**
 * The thread's earlier messages as the agent's context: oldest first, each by its author's display name, its
 * text decoded (keys and tokens masked; an app's attachments or blocks when it posted no text), its files by name
 * and permalink. This bot's own messages are left out (they are its status and answers, not the discussion), and
 * so are those Slack hides (a deleted root's tombstone); other bots' messages stay (an alert is often what the
 * thread is about).
 * `undefined` when there is nothing before the message.
 */
export async function readThreadContext(deps: Pick<Deps, 'slack' | 'store' | 'log'>, spot: ThreadSpot) {
  const messages: ThreadMessage[] = [];
  let cursor: string | undefined;
  let more = false;
  for (let page = 0; page < MAX_PAGES; page++) {
    let answer: ConversationsRepliesResponse;
    try {
      answer = await deps.slack.conversations.replies({
        channel: spot.channel,
        ts: spot.threadTs,
        limit: 200,
        ...(cursor && { cursor }),
      });
    } catch (error) {
      // A later page Slack will not give now (a non-Marketplace app reads once a minute): what was read stands.
      if (page === 0 || classifySlackError(error).kind !== 'rate_limited') throw error;
      break;
    }
    messages.push(...((answer.messages ?? []) as ThreadMessage[]));
    cursor = answer.response_metadata?.next_cursor;
    more = !!answer.has_more && !!cursor;
    if (!more) break;
  }
  // Messages left unread that came before the asking one: the context is the thread's start, and says so.
  const cut = more && Number(messages.at(-1)?.ts) < Number(spot.beforeTs);
  const earlier = messages.filter(
    (m) =>
      m.ts !== undefined &&
      Number(m.ts) < Number(spot.beforeTs) &&
      !m.hidden &&
      !(spot.botUserId && m.user === spot.botUserId) &&
      !(spot.botId && m.bot_id === spot.botId) &&
      (postedWords(m).trim() || m.files?.length),
  );
  if (earlier.length === 0) return undefined;
  const ids = earlier.flatMap((m) => [...(m.user ? [m.user] : []), ...mentionedUsers(postedWords(m))]);
  const names = await displayNames(deps, ids);
  const lines = earlier.map((m) => formatMessage(m, names));
  return contextOf(lines, THREAD_CONTEXT_MAX_CHARS, cut);
}

/**
 * The message a request is about (the shortcut's), for the agent: its author, its text decoded (or an app's
 * attachments or blocks), its files. The agent cannot open the message's link, so a form whose instruction only
 * refers to it ("document this") would otherwise send nothing of it. `undefined` when the instruction already holds
 * its words (the prefill kept), or Slack no longer has it.
 */
export async function readMessageContext(
  deps: Pick<Deps, 'slack' | 'store' | 'log'>,
  at: { channel: string; threadTs: string; messageTs: string },
  instruction: string,
): Promise<ThreadContext | undefined> {
  const bounds = { oldest: at.messageTs, latest: at.messageTs, inclusive: true };
  const answer = await deps.slack.conversations.replies({ channel: at.channel, ts: at.threadTs, ...bounds });
  const m = (answer.messages as ThreadMessage[] | undefined)?.find((message) => message.ts === at.messageTs);
  if (!m || m.hidden || !(postedWords(m).trim() || m.files?.length)) return undefined;
  const names = await displayNames(deps, [...(m.user ? [m.user] : []), ...mentionedUsers(postedWords(m))]);
  const words = maskSecrets(decodeSlackText(postedWords(m), names)).trim();
  if (words && instruction.includes(words)) return undefined;
  const text = [
    '--- Context: the Slack message this request is about. Use it as background; the instruction above is what to do. ---',
    truncate(formatMessage(m, names), THREAD_CONTEXT_MAX_CHARS),
    '--- End of context ---',
  ].join('\n');
  return { text, note: 'context: the Slack message it is about' };
}

function formatMessage(m: ThreadMessage, names: ReadonlyMap<string, string>): string {
  const author = (m.user && names.get(m.user)) ?? m.username ?? m.user ?? 'a bot';
  const files = (m.files ?? []).map((f) =>
    `\n  [file: ${f.name ?? f.title ?? 'unnamed'} ${f.permalink ?? ''}]`.trimEnd(),
  );
  // A key someone pasted is not the agent's to see: it could write it into its pull request.
  return `${author}: ${maskSecrets(decodeSlackText(postedWords(m), names)).trim()}${files.join('')}`;
}

/**
 * Keeps the newest lines that fit the cap, oldest first; `cut`: Slack gave only the thread's first messages before
 * the asking one. Pure, so the cap is tested without Slack.
 */
export function contextOf(lines: readonly string[], maxChars = THREAD_CONTEXT_MAX_CHARS, cut = false): ThreadContext {
  const kept: string[] = [];
  let size = 0;
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i] as string;
    const chars = codePoints(line);
    if (size + chars + 1 > maxChars) {
      if (kept.length === 0) kept.push(`…${tailOf(line, maxChars - 1)}`);
      break;
    }
    kept.unshift(line);
    size += chars + 1;
  }
  const left = lines.length - kept.length;
  const cap = `${maxChars.toLocaleString('en-US')} characters`;
  const all = `${cut ? 'the first ' : ''}${lines.length}`;
  const plural = lines.length === 1 ? '' : 's';
  const which = left
    ? `the last ${kept.length} of ${all} earlier messages of the Slack thread (the ${left} oldest left out to stay within ${cap})`
    : `${cut ? '' : 'the '}${all} earlier message${plural} of the Slack thread`;
  const unread = cut ? ' (Slack gave no more: its later messages are not here)' : '';
  const text = [
    `--- Context: ${which} this request was made in, oldest first${unread}. Use it as background; the instruction above is what to do. ---`,
    ...kept,
    '--- End of context ---',
  ].join('\n');
  const gave = cut ? 'Slack gave no more; ' : '';
  const note = left
    ? `context: the last ${kept.length} of ${all} earlier thread messages (${gave}capped at ${cap}, oldest left out)`
    : `context: ${cut ? 'the first ' : ''}${lines.length} earlier thread message${plural} (${gave}capped at ${cap})`;
  return { text, note };
}
