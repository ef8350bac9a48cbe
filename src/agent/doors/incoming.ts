import { z } from 'zod';
import { type SharedFile, sharedFilesOf } from '../attached-files.js';

/** A person's message, narrowed from a `message` or `app_mention` event: the one input of every conversational door. */
export interface Incoming {
  channel: string;
  ts: string;
  /** The thread it was written in; unset for a top-level message (or a thread's root). */
  threadTs?: string;
  userId: string;
  /** Slack wire text (decoded by the door), the bot's own mention removed; may be empty (a bare mention, a file). */
  wireText: string;
  /** Slack's id of the message, the same in both events of a mention. */
  clientMsgId?: string;
  /** The text mentioned the bot. */
  mentionsBot: boolean;
  /** Files shared with it (`file_share`). */
  files: SharedFile[];
}

/** Subtypes that are still a person writing; edits, deletions, joins and bots are not. */
const PERSON_SUBTYPES = new Set([undefined, 'thread_broadcast', 'file_share']);

/** A string field of a Slack event; anything else reads as absent. */
const maybeString = z.string().optional().catch(undefined);

/** What the guard ladder reads of a `message` or `app_mention` event (Bolt's types are a union of many shapes). */
const MessageEventSchema = z.looseObject({
  subtype: maybeString,
  bot_id: maybeString,
  thread_ts: maybeString,
  ts: maybeString,
  channel: maybeString,
  user: maybeString,
  text: maybeString,
  client_msg_id: maybeString,
  files: z.unknown().optional(),
  /** Slack sends an `app_mention` again when its message is edited, stamped so. */
  edited: z.unknown().optional(),
});

/**
 * The guard ladder, pure: an event becomes an `Incoming` only when a person (not a bot) wrote a new message (not an
 * edit of one).
 * Whether it starts a job, follows one up or is none of the bot's business is decided later.
 */
export function toIncoming(event: object, botUserId?: string): Incoming | undefined {
  const { subtype, bot_id, thread_ts, ts, channel, user, text, client_msg_id, files, edited } =
    MessageEventSchema.parse(event);
  if (!PERSON_SUBTYPES.has(subtype) || bot_id || edited !== undefined) return undefined;
  if (ts === undefined || channel === undefined || user === undefined) return undefined;
  if (botUserId && user === botUserId) return undefined;
  const wire = text ?? '';
  // The bot's mention goes with the blanks around it (a space between words, nothing at a line's start or end); every
  // other blank is the person's, a code block's indentation included.
  const mention = botUserId ? new RegExp(`[ \\t]*<@${botUserId}(?:\\|[^<>]*)?>[ \\t]*`, 'g') : undefined;
  const mentionsBot = mention ? mention.test(wire) : false;
  const lineEdge = (char: string | undefined) => char === undefined || char === '\n';
  const withoutMention = (found: string, at: number) =>
    lineEdge(wire[at - 1]) || lineEdge(wire[at + found.length]) ? '' : ' ';
  return {
    channel,
    ts,
    ...(thread_ts !== undefined && thread_ts !== ts && { threadTs: thread_ts }),
    userId: user,
    wireText: (mention ? wire.replace(mention, withoutMention) : wire).trim(),
    ...(client_msg_id !== undefined && { clientMsgId: client_msg_id }),
    mentionsBot,
    files: sharedFilesOf(files),
  };
}
