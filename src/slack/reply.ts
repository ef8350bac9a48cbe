import type { WebClient } from '@slack/web-api';
import { z } from 'zod';
import type { Logger } from '../log.js';
import { slackErrorCode } from './errors.js';
import type { Message } from './message.js';

/** Who a private answer is for and where they wrote: the conversation, the thread, Slack's `response_url`. */
export const AudienceSchema = z.object({
  userId: z.string(),
  channel: z.string(),
  threadTs: z.string().optional(),
  /** Given with commands, shortcuts and button clicks: answers there need no membership in the channel. */
  responseUrl: z.string().optional(),
});
export type Audience = z.infer<typeof AudienceSchema>;

/** A message a reaction goes on. */
export interface MessageRef {
  channel: string;
  ts: string;
}

/**
 * The one way the app answers people. Features decide *what* to say; this module decides *how* it reaches the
 * person: privately through `response_url` when Slack gave one, else as an ephemeral in their conversation and
 * thread, and where the bot cannot post there (not a member, archived), in its DM with them, so an echoed
 * instruction is never lost. Failures are logged, never thrown: an answer that cannot be delivered must not undo
 * the work it reports.
 */
export interface Replies {
  privately(to: Audience, message: Message): Promise<void>;
  /**
   * Privately as `privately` does, but without its DM fallback, saying whether Slack took the message: for blocks a
   * workspace may refuse (`invalid_blocks`), so the caller can send its own fallback instead.
   */
  offer(to: Audience, message: Message): Promise<boolean>;
  /** Replaces the message a button was clicked on (a report's next page). False when Slack refused. */
  replace(responseUrl: string, message: Message): Promise<boolean>;
  /** The bot's DM with the person: whether Slack took it. */
  direct(userId: string, message: Message): Promise<boolean>;
  react(message: MessageRef, name: string): Promise<void>;
  unreact(message: MessageRef, name: string): Promise<void>;
}

export interface ReplyDeps {
  slack: WebClient;
  log: Logger;
  /** Posts JSON to a `response_url` (Slack's, or the stand-in's in tests); resolves with the HTTP status. */
  postToResponseUrl?: (url: string, body: Record<string, unknown>) => Promise<number>;
}

export function createReplies({ slack, log, postToResponseUrl = postJson }: ReplyDeps): Replies {
  const warn = (op: string, error: unknown) =>
    log.warn('slack.reply_failed', { op, slack_error: slackErrorCode(error) });

  const viaResponseUrl = async (url: string, body: Record<string, unknown>) => {
    try {
      const status = await postToResponseUrl(url, body);
      if (status >= 200 && status < 300) return true;
      log.warn('slack.reply_failed', { op: 'response_url', http_status: status });
    } catch (error) {
      warn('response_url', error);
    }
    return false;
  };

  const direct = async (userId: string, message: Message) => {
    try {
      await slack.chat.postMessage({ channel: userId, ...message });
      return true;
    } catch (error) {
      warn('direct', error);
      return false;
    }
  };

  const offer = async (to: Audience, message: Message) => {
    const ephemeral = { response_type: 'ephemeral', replace_original: false, ...message };
    if (to.responseUrl && (await viaResponseUrl(to.responseUrl, ephemeral))) return true;
    try {
      const thread = to.threadTs ? { thread_ts: to.threadTs } : {};
      await slack.chat.postEphemeral({ channel: to.channel, user: to.userId, ...thread, ...message });
      return true;
    } catch (error) {
      warn('ephemeral', error);
      return false;
    }
  };

  const privately = async (to: Audience, message: Message): Promise<void> => {
    if ((await offer(to, message)) || (await direct(to.userId, message))) return;
    // Refused everywhere: the message itself (its blocks) is at fault. Its words still reach the person.
    if (message.blocks) await privately(to, { text: message.text });
  };

  return {
    privately,
    offer,
    replace: (responseUrl, message) => viaResponseUrl(responseUrl, { replace_original: true, ...message }),
    direct,
    async react({ channel, ts }, name) {
      await slack.reactions.add({ channel, timestamp: ts, name }).catch((error) => warn(`react:${name}`, error));
    },
    async unreact({ channel, ts }, name) {
      await slack.reactions.remove({ channel, timestamp: ts, name }).catch((error) => warn(`unreact:${name}`, error));
    },
  };
}

/** How long a `response_url` post may take; Slack answers these at once. */
const RESPONSE_URL_TIMEOUT_MS = 10_000;

async function postJson(url: string, body: Record<string, unknown>): Promise<number> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(RESPONSE_URL_TIMEOUT_MS),
  });
  await response.body?.cancel();
  return response.status;
}
