import type { WebClient } from '@slack/web-api';
import { classifySlackError } from '../slack/errors.js';
import { slackTs } from '../slack/witness.js';

/**
 * The app's own messages that carry metadata, read back from every channel the bot is a member of: what Slack still
 * knows when the store lost its data. Public and private channels only: listing DMs and group DMs needs
 * `im:read` and `mpim:read`, which the app does not ask for (docs/operating.md says what that leaves unhealed).
 */

/** Both kinds of channel the app's scopes list (`channels:read`, `groups:read`). */
const CHANNEL_TYPES = 'public_channel,private_channel';
/** Slack's largest pages: `users.conversations` takes up to 1000, `conversations.history` up to 999 (200 advised). */
const CHANNELS_PAGE = 200;
const HISTORY_PAGE = 200;
/** At most this many pages of one channel's history are read (2,000 messages): a very busy channel is cut there. */
const MAX_HISTORY_PAGES = 10;

export interface WitnessedPost {
  channel: string;
  ts: string;
  eventType: string;
  payload: Record<string, unknown>;
}

interface Message {
  ts?: string;
  text?: string;
  reply_count?: number;
  reply_users?: string[];
  metadata?: { event_type?: string; event_payload?: unknown };
}

/** The channels (ids) the bot is a member of, archived ones left out, every page. */
export async function memberChannels(slack: WebClient): Promise<string[]> {
  const channels: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await slack.users.conversations({
      types: CHANNEL_TYPES,
      exclude_archived: true,
      limit: CHANNELS_PAGE,
      ...(cursor && { cursor }),
    });
    for (const channel of page.channels ?? []) if (channel.id) channels.push(channel.id);
    cursor = page.response_metadata?.next_cursor || undefined;
  } while (cursor);
  return channels;
}

/**
 * Waits out a Slack 429's `Retry-After` (ms) before a read is made again, while the heal is still this instance's.
 * A non-Marketplace app reads history and replies once a minute, 15 messages a page: a heal that gave up at each
 * 429 and began the channel again next time would read its first page for ever.
 */
export type WaitOut = (ms: number) => Promise<void>;

/** `read`, made again after each 429 it meets (Slack did nothing), so a long conversation is read page by page. */
export async function paced<T>(waitOut: WaitOut, read: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      return await read();
    } catch (error) {
      const failure = classifySlackError(error);
      if (failure.kind !== 'rate_limited') throw error;
      await waitOut(failure.retryAfterMs);
    }
  }
}

/** Threads worth opening: the bot replied in them, or their first message mentions it (a job it joined). */
export interface ThreadsOf {
  botUserId: string;
  /** Threads started before this (Slack's clock) are not opened. */
  sinceMs: number;
}

export interface ChannelWitnesses {
  /** Top-level messages whose metadata has one of the event types, newest first. */
  posts: WitnessedPost[];
  /** `ts` of threads that may hold such messages among their replies (`ThreadsOf`). */
  threads: string[];
}

/**
 * What `channel` witnesses since `sinceMs` (Slack's clock), as `conversations.history` lists it: its top-level
 * messages whose metadata has one of `eventTypes`, and the threads `threadsOf` says may hold more (a reply in a
 * thread is not among the history's messages).
 */
export async function witnessedIn(
  slack: WebClient,
  channel: string,
  {
    sinceMs,
    eventTypes,
    threadsOf,
    waitOut,
  }: { sinceMs: number; eventTypes: ReadonlySet<string>; threadsOf: ThreadsOf; waitOut: WaitOut },
): Promise<ChannelWitnesses> {
  const found: ChannelWitnesses = { posts: [], threads: [] };
  let cursor: string | undefined;
  for (let page = 0; page < MAX_HISTORY_PAGES; page++) {
    const history = await paced(waitOut, () =>
      slack.conversations.history({
        channel,
        oldest: slackTs(sinceMs),
        include_all_metadata: true,
        limit: HISTORY_PAGE,
        ...(cursor && { cursor }),
      }),
    );
    for (const message of (history.messages ?? []) as Message[]) {
      const post = witnessed(channel, message, eventTypes);
      if (post) found.posts.push(post);
      else if (message.ts && worthOpening(message, threadsOf)) found.threads.push(message.ts);
    }
    cursor = history.response_metadata?.next_cursor || undefined;
    if (!cursor) break;
  }
  return found;
}

/** The replies of a thread whose metadata has one of `eventTypes` (its first message left out). */
export async function witnessedInThread(
  slack: WebClient,
  channel: string,
  threadTs: string,
  eventTypes: ReadonlySet<string>,
  waitOut: WaitOut,
): Promise<WitnessedPost[]> {
  const found: WitnessedPost[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_HISTORY_PAGES; page++) {
    const replies = await paced(waitOut, () =>
      slack.conversations.replies({
        channel,
        ts: threadTs,
        include_all_metadata: true,
        limit: HISTORY_PAGE,
        ...(cursor && { cursor }),
      }),
    );
    for (const message of (replies.messages ?? []) as Message[]) {
      const post = message.ts !== threadTs && witnessed(channel, message, eventTypes);
      if (post) found.push(post);
    }
    cursor = replies.response_metadata?.next_cursor || undefined;
    if (!cursor) break;
  }
  return found;
}

function worthOpening(message: Message, { botUserId, sinceMs }: ThreadsOf): boolean {
  if (!message.reply_count || Number(message.ts) * 1000 < sinceMs) return false;
  return (message.reply_users ?? []).includes(botUserId) || (message.text ?? '').includes(`<@${botUserId}>`);
}

function witnessed(channel: string, message: Message, eventTypes: ReadonlySet<string>): WitnessedPost | undefined {
  const { event_type: eventType, event_payload: payload } = message.metadata ?? {};
  if (!message.ts || !eventType || !eventTypes.has(eventType)) return undefined;
  if (typeof payload !== 'object' || payload === null) return undefined;
  return { channel, ts: message.ts, eventType, payload: payload as Record<string, unknown> };
}
