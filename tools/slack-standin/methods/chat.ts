import { blockKitProblems, type RefusedBlocks, type Surface } from '../block-kit.js';
import { TOMBSTONE } from '../events.js';
import type { EphemeralMessage, StoredMessage, Tenant } from '../tenant.js';
import { type Answer, type Handler, type MethodCall, ok, refuse, text } from './answer.js';
import { hidden } from './conversations.js';
import { metadataOf, streamShown } from './streams.js';

/** Slack's `invalid_blocks`, one `[ERROR] … [json-pointer:…]` line per problem; undefined when Slack accepts them. */
export function invalidBlocks(
  blocks: unknown,
  surface: Surface = 'message',
  refused?: RefusedBlocks,
): Answer | undefined {
  if (blocks === undefined) return undefined;
  const problems = blockKitProblems(blocks, surface, refused);
  return problems.length
    ? refuse('invalid_blocks', { errors: problems, response_metadata: { messages: problems } })
    : undefined;
}

/**
 * Why the bot cannot post in `channel`, as chat.postMessage, chat.postEphemeral and files.completeUploadExternal
 * answer: an archived channel is `is_archived`; one the bot is not in `not_in_channel`, but a DM or group DM it is
 * not part of is hidden from it, `channel_not_found`.
 */
export function postRefusal(tenant: Tenant, channel: string): Answer | undefined {
  const found = tenant.channel(channel);
  if (hidden(found)) return refuse('channel_not_found');
  if (found?.archived) return refuse('is_archived');
  if (found?.botMember === false) return refuse(channel.startsWith('D') ? 'channel_not_found' : 'not_in_channel');
  return undefined;
}

/** A channel whose posting permissions refuse this post (chat.postMessage's `restricted_action_*` errors). */
function restrictedPost(tenant: Tenant, args: MethodCall['args']): Answer | undefined {
  const posting = tenant.channel(String(args.channel))?.posting;
  if (posting === 'read_only') return refuse('restricted_action_read_only_channel');
  if (posting === 'thread_only' && typeof args.thread_ts !== 'string') {
    return refuse('restricted_action_thread_only_channel');
  }
  return undefined;
}

const isEmptyObject = (value: unknown) =>
  (typeof value === 'string' && value.trim() === '{}') ||
  (typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0);

export function withoutChannel({ channel: _, ...message }: StoredMessage) {
  return { type: 'message', ...message };
}

/**
 * chat.postMessage's `message_truncated` warning: "The `text` field of a message should have no more than 40,000
 * characters. We truncate really long messages."
 */
export const MESSAGE_MAX_TEXT = 40_000;
const TRUNCATED = { warning: 'message_truncated', response_metadata: { warnings: ['message_truncated'] } };

function postMessage({ args, tenant, slack }: MethodCall): Answer {
  const typed = text(args.text);
  if (typed === undefined && args.blocks === undefined) return refuse('no_text');
  const said = typed?.slice(0, MESSAGE_MAX_TEXT);
  const bad = invalidBlocks(args.blocks, 'message', slack.refusedBlocks);
  if (bad) return bad;
  const meta = metadataOf(args.metadata);
  if ('body' in meta) return meta;
  const refused = postRefusal(tenant, String(args.channel)) ?? restrictedPost(tenant, args);
  if (refused) return refused;
  const { botUserId, botId } = tenant.workspace;
  const message: StoredMessage = {
    channel: String(args.channel),
    ts: slack.nextTs(),
    user: botUserId,
    bot_id: botId,
    ...(said !== undefined && { text: said }),
    ...(args.blocks !== undefined && { blocks: args.blocks }),
    ...(typeof args.thread_ts === 'string' && { thread_ts: args.thread_ts }),
    ...meta,
  };
  tenant.messages.push(message);
  // The app's reply in an assistant thread clears the status it set there.
  if (message.thread_ts) {
    const thread = tenant.assistantThread(message.channel, message.thread_ts);
    if (thread) delete thread.status;
  }
  const truncated = typed !== undefined && typed.length > MESSAGE_MAX_TEXT;
  return ok({
    channel: message.channel,
    ts: message.ts,
    message: withoutChannel(message),
    ...(truncated && TRUNCATED),
  });
}

/** chat.update's `msg_too_long`: "The `text` field cannot exceed 4,000 characters." */
export const UPDATE_MAX_TEXT = 4_000;

/**
 * chat.update refuses (its method reference) a message the app did not post (`cant_update_message`), one in an
 * archived channel (`is_inactive`), text over 4,000 characters (`msg_too_long`), and a message "currently streaming
 * text" (`streaming_state_conflict`): a stream must be stopped, or have expired, before it is rewritten.
 */
function update({ args, tenant, slack }: MethodCall): Answer {
  const bad = invalidBlocks(args.blocks, 'message', slack.refusedBlocks);
  if (bad) return bad;
  const message = tenant.message(String(args.channel), String(args.ts));
  if (!message) return refuse('message_not_found');
  if (message.bot_id !== tenant.workspace.botId) return refuse('cant_update_message');
  if (tenant.channel(message.channel)?.archived) return refuse('is_inactive');
  const said = text(args.text);
  if (said !== undefined && said.length > UPDATE_MAX_TEXT) return refuse('msg_too_long');
  const stream = tenant.streams.get(`${message.channel}/${message.ts}`);
  if (stream && streamShown(stream, slack.now(), slack.streamExpiryMs) === 'streaming') {
    return refuse('streaming_state_conflict');
  }
  // "To remove previous metadata, include an empty object"; without it the message keeps its metadata.
  const clears = isEmptyObject(args.metadata);
  const meta = clears ? {} : metadataOf(args.metadata);
  if ('body' in meta) return meta;
  if (said !== undefined) message.text = said;
  if (args.blocks !== undefined) message.blocks = args.blocks;
  if (clears) delete message.metadata;
  if (meta.metadata) message.metadata = meta.metadata;
  // An update is what finishes a stream Slack expired (its stop is refused then): the message is final.
  if (stream) stream.stopped = true;
  return ok({ channel: message.channel, ts: message.ts, text: message.text ?? '', message: withoutChannel(message) });
}

function postEphemeral({ args, tenant, slack }: MethodCall): Answer {
  const said = text(args.text);
  if (said === undefined && args.blocks === undefined) return refuse('no_text');
  const bad = invalidBlocks(args.blocks, 'message', slack.refusedBlocks);
  if (bad) return bad;
  // Slack's method reference lists the same refusals for an ephemeral: the bot must be in the conversation too.
  const refused = postRefusal(tenant, String(args.channel));
  if (refused) return refused;
  const message: EphemeralMessage = {
    channel: String(args.channel),
    user: String(args.user),
    ts: slack.nextTs(),
    ...(said !== undefined && { text: said }),
    ...(args.blocks !== undefined && { blocks: args.blocks }),
    ...(typeof args.thread_ts === 'string' && { thread_ts: args.thread_ts }),
  };
  tenant.ephemerals.push(message);
  return ok({ message_ts: message.ts });
}

function getPermalink({ args, tenant }: MethodCall): Answer {
  const channel = String(args.channel);
  if (!tenant.message(channel, String(args.message_ts))) return refuse('message_not_found');
  return ok({ channel, permalink: tenant.permalink(channel, String(args.message_ts)) });
}

/**
 * chat.delete of the app's own message (its method reference: `message_not_found`, `cant_delete_message` for
 * another's): gone, or a thread root with replies left as Slack's tombstone.
 */
function remove({ args, tenant }: MethodCall): Answer {
  const channel = String(args.channel);
  const ts = String(args.ts);
  const at = tenant.messages.findIndex((m) => m.channel === channel && m.ts === ts && !m.hidden);
  const message = tenant.messages[at];
  if (!message) return refuse('message_not_found');
  if (message.bot_id !== tenant.workspace.botId) return refuse('cant_delete_message');
  const replied = tenant.messages.some((m) => m.channel === channel && m.thread_ts === ts && m.ts !== ts);
  if (replied) tenant.messages[at] = { channel, ts, thread_ts: ts, ...TOMBSTONE };
  else tenant.messages.splice(at, 1);
  return ok({ channel, ts });
}

export const chatMethods: Record<string, Handler> = {
  'chat.delete': remove,
  'chat.postMessage': postMessage,
  'chat.update': update,
  'chat.postEphemeral': postEphemeral,
  'chat.getPermalink': getPermalink,
};
