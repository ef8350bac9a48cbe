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

/**
 * The guard ladder, pure: an event becomes an `Incoming` only when a person (not a bot) wrote a new message.
 * Whether it starts a job, follows one up or is none of the bot's business is decided later.
 */
export function toIncoming(event: Record<string, unknown>, botUserId?: string): Incoming | undefined {
  const { subtype, bot_id, thread_ts, ts, channel, user, text, client_msg_id, files } = event;
  if (!PERSON_SUBTYPES.has(subtype as string | undefined) || bot_id) return undefined;
  if (typeof ts !== 'string' || typeof channel !== 'string' || typeof user !== 'string') return undefined;
  if (botUserId && user === botUserId) return undefined;
  const wire = typeof text === 'string' ? text : '';
  const mention = botUserId ? new RegExp(`<@${botUserId}(?:\\|[^<>]*)?>`, 'g') : undefined;
  const mentionsBot = mention ? mention.test(wire) : false;
  return {
    channel,
    ts,
    ...(typeof thread_ts === 'string' && thread_ts !== ts && { threadTs: thread_ts }),
    userId: user,
    wireText: (mention ? wire.replace(mention, ' ') : wire).replace(/[ \t]{2,}/g, ' ').trim(),
    ...(typeof client_msg_id === 'string' && { clientMsgId: client_msg_id }),
    mentionsBot,
    files: sharedFilesOf(files),
  };
}
