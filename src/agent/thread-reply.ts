import type { ThreadReply } from './follow-up.js';

/** Subtypes that are still a person writing in the thread; edits, deletions, joins and bots are not. */
const PERSON_SUBTYPES = new Set([undefined, 'thread_broadcast', 'file_share']);

/**
 * The guard ladder, pure: a message event becomes a reply only when a person (not a bot) wrote new
 * text inside a thread, and not the thread's root. Whether the thread belongs to a job is asked later.
 */
export function toThreadReply(event: Record<string, unknown>): Omit<ThreadReply, 'jobId' | 'project'> | undefined {
  const { subtype, bot_id, thread_ts, ts, channel, user, text } = event;
  if (!PERSON_SUBTYPES.has(subtype as string | undefined) || bot_id) return undefined;
  if (typeof thread_ts !== 'string' || typeof ts !== 'string' || thread_ts === ts) return undefined;
  if (typeof channel !== 'string' || typeof user !== 'string') return undefined;
  if (typeof text !== 'string' || !text.trim()) return undefined;
  return { channel, threadTs: thread_ts, ts, userId: user, text: text.trim() };
}
