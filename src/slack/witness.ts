import type { WebClient } from '@slack/web-api';
import { classifySlackError, WITNESS_UNREAD } from './errors.js';

/** Pages of a thread read when looking for an earlier post (200 messages each); a longer thread is not known. */
const MAX_THREAD_PAGES = 10;
/** Latest messages of a channel read when looking for a top-level post that went out moments ago. */
const CHANNEL_WINDOW = 50;
/** How far Slack's clock (a message's `ts`) may be behind this host's when `since` is read. */
const CLOCK_MARGIN_MS = 60_000;

export interface Where {
  channel: string;
  /** Look in this thread; unset: among the channel's latest top-level messages. */
  threadTs?: string | undefined;
  /**
   * When the post that may be there was first attempted (ms, this host's clock): only messages from shortly before
   * then are read (Slack's `oldest`), so a long thread is read in one page. Unset: the whole thread.
   */
  since?: number | undefined;
}

/**
 * Slack would not give the whole conversation now (a page refused with a 429, or more pages than are read): whether
 * it holds the message is not known. A transient failure (`classifySlackError`), never "not there": the caller looks
 * again before it posts, rather than post a second time or forget that an earlier attempt may have posted.
 */
export class WitnessUnreadError extends Error {
  override name = 'WitnessUnreadError';
  readonly code = WITNESS_UNREAD;
  constructor(why: string) {
    super(`Slack did not give the whole conversation (${why}): whether it holds the message is not known`);
  }
}

/** A message found by its metadata: its `ts` and its `event_payload`. */
export interface Witnessed {
  ts: string;
  payload: Record<string, unknown>;
}

/**
 * Slack as the witness: the `ts` of a message in `where` whose `metadata` has `eventType` and a payload that
 * `matches`, or `undefined`. After an ambiguous failure (a timeout, a 5xx: Slack may have stored the message
 * anyway) this tells whether the post exists before anything is posted again.
 */
export async function findPosted(
  slack: WebClient,
  where: Where,
  eventType: string,
  matches: (payload: Record<string, unknown>) => boolean,
): Promise<string | undefined> {
  return (await findWitnessed(slack, where, eventType, matches))?.ts;
}

/** The first message in `where` whose `metadata` has `eventType` and a payload that `matches`, with that payload. */
export async function findWitnessed(
  slack: WebClient,
  where: Where,
  eventType: string,
  matches: (payload: Record<string, unknown>) => boolean,
): Promise<Witnessed | undefined> {
  const hit = (messages: { ts?: string; metadata?: unknown }[] | undefined): Witnessed | undefined => {
    for (const message of messages ?? []) {
      const { event_type, event_payload } = (message.metadata ?? {}) as {
        event_type?: string;
        event_payload?: Record<string, unknown>;
      };
      if (message.ts && event_type === eventType && event_payload !== undefined && matches(event_payload)) {
        return { ts: message.ts, payload: event_payload };
      }
    }
    return undefined;
  };

  // `inclusive`: a message stored at exactly `oldest` is read too. A thread's parent comes first whatever the bounds.
  const bounds = where.since === undefined ? {} : { oldest: slackTs(where.since - CLOCK_MARGIN_MS), inclusive: true };
  if (!where.threadTs) {
    const history = await unless429(
      slack.conversations.history({
        channel: where.channel,
        include_all_metadata: true,
        limit: CHANNEL_WINDOW,
        ...bounds,
      }),
    );
    return hit(history.messages);
  }
  let cursor: string | undefined;
  for (let page = 0; page < MAX_THREAD_PAGES; page++) {
    const replies = await unless429(
      slack.conversations.replies({
        channel: where.channel,
        ts: where.threadTs,
        include_all_metadata: true,
        limit: 200,
        ...bounds,
        ...(cursor && { cursor }),
      }),
    );
    const found = hit(replies.messages);
    if (found) return found;
    cursor = replies.response_metadata?.next_cursor || undefined;
    if (!cursor) return undefined;
  }
  throw new WitnessUnreadError(`more than ${MAX_THREAD_PAGES} pages`);
}

/** A time (ms) as a Slack `ts` (an `oldest` bound): seconds, and microseconds after the dot. */
export const slackTs = (ms: number) => (ms / 1000).toFixed(6);

/** A read Slack refused with a 429 (the first page or a later one) did not say the message is not there. */
async function unless429<T>(read: Promise<T>): Promise<T> {
  try {
    return await read;
  } catch (error) {
    if (classifySlackError(error).kind === 'rate_limited') throw new WitnessUnreadError('ratelimited');
    throw error;
  }
}
