import type { StoredMessage } from '../tenant.js';
import type { StandinChannel } from '../workspace.js';
import { type Answer, flag, type Handler, type MethodCall, ok, refuse } from './answer.js';

function open({ args, tenant, slack }: MethodCall): Answer {
  // The bot's DM with one person: Slack answers the same D… id every time.
  const [userId = ''] = String(args.users ?? '').split(',');
  if (!slack.personIn(tenant, userId)) return refuse('user_not_found');
  return ok({ channel: { id: `D${userId}` } });
}

/** A group DM the bot is not in, or a DM between two people: Slack does not show it to the bot at all. */
export const hidden = (channel: StandinChannel | undefined) =>
  channel?.directMessage === true || (channel?.groupDm === true && channel.botMember === false);

function info({ args, tenant }: MethodCall): Answer {
  const id = String(args.channel);
  if (id.startsWith('D') && tenant.person(id.slice(1))) {
    return ok({ channel: { id, is_im: true, is_channel: false, user: id.slice(1) } });
  }
  const channel = tenant.channel(id);
  if (!channel || hidden(channel)) return refuse('channel_not_found');
  const shared = channel.sharedWith ?? [];
  return ok({
    channel: {
      id: channel.id,
      name: channel.name,
      is_channel: !channel.groupDm,
      is_im: false,
      is_mpim: channel.groupDm === true,
      is_private: channel.groupDm === true || channel.id.startsWith('G'),
      is_member: channel.botMember !== false,
      is_archived: channel.archived === true,
      is_shared: shared.length > 0,
      is_ext_shared: shared.length > 0,
      context_team_id: tenant.teamId,
      ...(shared.length > 0 && { shared_team_ids: [tenant.teamId, ...shared] }),
    },
  });
}

/**
 * `oldest`/`latest` bound what is returned (exclusive unless `inclusive`); a thread's parent always comes first in
 * `conversations.replies`, whatever the bounds.
 */
function inBounds(args: MethodCall['args']) {
  const inclusive = flag(args.inclusive);
  const oldest = args.oldest === undefined ? undefined : Number(args.oldest);
  const latest = args.latest === undefined ? undefined : Number(args.latest);
  return (m: StoredMessage) => {
    const ts = Number(m.ts);
    if (oldest !== undefined && (inclusive ? ts < oldest : ts <= oldest)) return false;
    return latest === undefined || (inclusive ? ts <= latest : ts < latest);
  };
}

/**
 * What Slack adds to a message that has replies: `thread_ts` (its own ts), `reply_count`, `reply_users_count`,
 * `reply_users` (who replied, in order of their first reply) and `latest_reply`.
 */
function threadOf(messages: readonly StoredMessage[], channel: string, ts: string) {
  const replies = messages.filter((m) => m.channel === channel && m.thread_ts === ts && m.ts !== ts);
  if (replies.length === 0) return {};
  const users = [...new Set(replies.map((m) => m.user).filter((u): u is string => u !== undefined))];
  return {
    thread_ts: ts,
    reply_count: replies.length,
    reply_users_count: users.length,
    reply_users: users,
    latest_reply: replies.at(-1)?.ts,
  };
}

function read({ method, args, tenant, slack }: MethodCall): Answer {
  const withMetadata = flag(args.include_all_metadata);
  const channel = String(args.channel);
  if (hidden(tenant.channel(channel))) return refuse('channel_not_found');
  const replies = method === 'conversations.replies';
  // History's reference: "Only user tokens can access public channels they are not in" (replies lists no such code).
  if (!replies && tenant.channel(channel)?.botMember === false) {
    return refuse(channel.startsWith('D') ? 'channel_not_found' : 'not_in_channel');
  }
  const bounded = inBounds(args);
  const all = tenant.messages
    .filter((m) => m.channel === channel)
    .filter((m) => (replies ? m.ts === args.ts || (m.thread_ts === args.ts && bounded(m)) : !m.thread_ts && bounded(m)))
    .map(({ metadata, channel: _, ...m }) => ({
      type: 'message',
      ...m,
      ...threadOf(tenant.messages, channel, m.ts),
      ...(withMetadata && metadata !== undefined && { metadata }),
    }));
  // History is newest first; a thread is its root, then replies oldest first.
  if (!replies) all.reverse();
  const limit = slack.rateLimits.pageSize(method, Number(args.limit), 100, 1000);
  const start = Number(args.cursor ?? 0) || 0;
  const page = all.slice(start, start + limit);
  const more = start + limit < all.length;
  return ok({ messages: page, has_more: more, response_metadata: { next_cursor: more ? String(start + limit) : '' } });
}

/** The conversation types `users.conversations` lists, by the name its `types` argument uses. */
export const CONVERSATION_TYPES = ['public_channel', 'private_channel', 'mpim', 'im'] as const;
/** Slack's largest `users.conversations` page. */
const MAX_CONVERSATIONS_PAGE = 1000;

/**
 * The conversations the bot is a member of, of the `types` asked (public channels when none are), in pages of
 * `limit` (100 by default) with a `next_cursor`. The stand-in's DMs are not listed (it keeps no list of them), and
 * its channels are public unless they are group DMs or their id starts with `G`. Scopes are checked before (`scopes.ts`).
 */
function memberships({ args, tenant }: MethodCall): Answer {
  const types = String(args.types ?? 'public_channel')
    .split(',')
    .map((t) => t.trim());
  if (!types.every((t) => (CONVERSATION_TYPES as readonly string[]).includes(t))) return refuse('invalid_types');
  const limit = args.limit === undefined ? 100 : Number(args.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_CONVERSATIONS_PAGE) return refuse('invalid_limit');
  const start = args.cursor === undefined || args.cursor === '' ? 0 : Number(args.cursor);
  if (!Number.isInteger(start) || start < 0) return refuse('invalid_cursor');
  const listed = tenant.workspace.channels
    .filter((c) => c.botMember !== false && !(flag(args.exclude_archived) && c.archived))
    .filter((c) => types.includes(c.groupDm ? 'mpim' : c.id.startsWith('G') ? 'private_channel' : 'public_channel'))
    .map((c) => ({
      id: c.id,
      name: c.name,
      is_channel: !c.groupDm && !c.id.startsWith('G'),
      is_group: !c.groupDm && c.id.startsWith('G'),
      is_im: false,
      is_mpim: c.groupDm === true,
      is_private: c.groupDm === true || c.id.startsWith('G'),
      is_archived: c.archived === true,
      is_ext_shared: (c.sharedWith ?? []).length > 0,
    }));
  const page = listed.slice(start, start + limit);
  const more = start + limit < listed.length;
  return ok({ channels: page, response_metadata: { next_cursor: more ? String(start + limit) : '' } });
}

export const conversationMethods: Record<string, Handler> = {
  'conversations.open': open,
  'conversations.info': info,
  'conversations.history': read,
  'conversations.replies': read,
  'users.conversations': memberships,
};
