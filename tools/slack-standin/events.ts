import { randomUUID } from 'node:crypto';
import type { StoredMessage, Tenant } from './tenant.js';

/** An Events API envelope, as Slack sends it to the app (over HTTP or in a Socket Mode `events_api` envelope). */
export type EventEnvelope = Record<string, unknown> & { event_id: string; event: Record<string, unknown> };

export function newEventId(): string {
  return `Ev${randomUUID().replace(/-/g, '').slice(0, 10).toUpperCase()}`;
}

/**
 * The `event_callback` around `event` for `tenant` (Events API, "callback field"): the team, the app, one
 * authorization for the app's bot. On Enterprise Grid it carries the organisation (`enterprise_id`, and for an
 * org-wide install `is_enterprise_install` with a null team in the authorization, which Bolt reads to authorize);
 * in a Slack Connect channel `is_ext_shared_channel`.
 */
export function eventEnvelope(tenant: Tenant, event: Record<string, unknown>, shared = false): EventEnvelope {
  const ws = tenant.workspace;
  const enterpriseId = ws.enterpriseId ?? null;
  const org = !!tenant.orgInstall;
  return {
    token: 'legacy-verification-token',
    team_id: ws.teamId,
    ...(enterpriseId && { enterprise_id: enterpriseId }),
    context_team_id: ws.teamId,
    context_enterprise_id: enterpriseId,
    api_app_id: ws.appId,
    type: 'event_callback',
    event_id: newEventId(),
    event_time: Math.floor(Date.now() / 1000),
    authorizations: [
      {
        enterprise_id: enterpriseId,
        team_id: org ? null : ws.teamId,
        user_id: ws.botUserId,
        is_bot: true,
        is_enterprise_install: org,
      },
    ],
    is_ext_shared_channel: shared,
    event,
  };
}

/**
 * The same event as Slack delivers it through another installation. In a Slack Connect channel where several
 * organisations installed the app, Slack sends each event once and names one installation in `authorizations`
 * (Events API, "authorizations": only one is listed, `apps.event.authorizations.list` gives the rest); which one
 * is Slack's choice, not the author's organisation. The event and its id are unchanged.
 */
export function viaInstallation(tenant: Tenant, envelope: EventEnvelope): EventEnvelope {
  return { ...eventEnvelope(tenant, envelope.event, !!envelope.is_ext_shared_channel), event_id: envelope.event_id };
}

function channelType(channel: string): string {
  return channel.startsWith('D') ? 'im' : channel.startsWith('G') ? 'group' : 'channel';
}

/**
 * The events Slack delivers for a message a person wrote (stored as `stored`): a `message` (`message.im` in a DM,
 * with its subtype, e.g. `file_share`), and before it an `app_mention` (same ts, its own event_id) when it mentions
 * the bot outside a DM. Each carries the author's `team`; in a Slack Connect channel also `user_team` and
 * `source_team`, the author's organisation.
 */
export function messageEvents(tenant: Tenant, stored: StoredMessage & { user: string }): EventEnvelope[] {
  const authorTeam = tenant.author(stored.user)?.teamId ?? tenant.teamId;
  const shared = !!tenant.channel(stored.channel)?.sharedWith?.length;
  const type = channelType(stored.channel);
  const base = {
    user: stored.user,
    text: stored.text ?? '',
    ts: stored.ts,
    channel: stored.channel,
    event_ts: stored.ts,
    client_msg_id: stored.client_msg_id ?? randomUUID(),
    team: authorTeam,
    ...(shared && { user_team: authorTeam, source_team: authorTeam }),
    ...(stored.thread_ts && { thread_ts: stored.thread_ts }),
    ...(stored.files && { files: shared ? stored.files.map(slackConnectFile) : stored.files }),
  };
  // A reply names who wrote its thread's root (`parent_user_id`, as @slack/types' message events have it); one also
  // sent to the channel carries the root itself instead, and no `parent_user_id` (docs.slack.dev,
  // events/message/thread_broadcast; @slack/types' ThreadBroadcastMessageEvent).
  const root = stored.thread_ts !== undefined && stored.thread_ts !== stored.ts ? rootOf(tenant, stored) : undefined;
  const broadcast = stored.subtype === 'thread_broadcast';
  const message = {
    type: 'message',
    ...(stored.subtype && { subtype: stored.subtype }),
    ...base,
    ...(root?.user && !broadcast && { parent_user_id: root.user }),
    ...(root && broadcast && { root: broadcastRoot(tenant, root) }),
    channel_type: type,
  };
  const events = [eventEnvelope(tenant, message, shared)];
  const mentionsBot = base.text.includes(`<@${tenant.workspace.botUserId}>`);
  if (type !== 'im' && mentionsBot) events.unshift(eventEnvelope(tenant, { type: 'app_mention', ...base }, shared));
  return events;
}

/**
 * The `message` Slack sends when another app (an integration: an alert, a CI bot) posts in a channel: subtype
 * `bot_message`, its `bot_id` and `username`, no `user`, its `text` ('' when it posts attachments or blocks alone) and
 * what it posted (docs.slack.dev, events/message/bot_message; @slack/types' BotMessageEvent).
 */
export function botMessageEvent(tenant: Tenant, stored: StoredMessage): EventEnvelope {
  const { channel, ts, thread_ts, text = '', bot_id, username, attachments, blocks } = stored;
  return eventEnvelope(tenant, {
    type: 'message',
    subtype: 'bot_message',
    ...{ text, ts, bot_id, username, channel, event_ts: ts },
    ...(thread_ts && { thread_ts }),
    ...(attachments && { attachments }),
    ...(blocks !== undefined && { blocks }),
    channel_type: channelType(channel),
  });
}

/** The root of the thread `reply` was written in, as stored. */
function rootOf(tenant: Tenant, reply: StoredMessage): StoredMessage | undefined {
  return tenant.messages.find((m) => m.channel === reply.channel && m.ts === reply.thread_ts);
}

/** A thread's root as a `thread_broadcast` carries it: the message, with its thread's counts. */
function broadcastRoot(tenant: Tenant, root: StoredMessage) {
  const { channel, ...message } = root;
  const replies = tenant.messages.filter((m) => m.channel === channel && m.thread_ts === root.ts && m.ts !== root.ts);
  const users = [...new Set(replies.flatMap((m) => (m.user ? [m.user] : [])))];
  return {
    type: 'message',
    ...message,
    thread_ts: root.ts,
    reply_count: replies.length,
    reply_users_count: users.length,
    latest_reply: replies.at(-1)?.ts ?? root.ts,
    reply_users: users,
    is_locked: false,
  };
}

/**
 * The events Slack delivers when a person edits their message (`stored`, as it was before): a `message` of subtype
 * `message_changed` holding the new message and the previous one; and, outside a DM, when the new text mentions the
 * bot, an `app_mention` again, the same message (ts, client_msg_id) with its `edited` stamp (bolt-js #960).
 */
export function editEvents(
  tenant: Tenant,
  previous: StoredMessage & { user: string },
  { text, edited }: { text: string; edited: { user: string; ts: string } },
): EventEnvelope[] {
  const changed = { ...previous, text, edited };
  const shared = !!tenant.channel(previous.channel)?.sharedWith?.length;
  const type = channelType(previous.channel);
  const { channel, ...message } = changed;
  const events = [
    eventEnvelope(
      tenant,
      {
        type: 'message',
        subtype: 'message_changed',
        channel,
        hidden: true,
        message: { type: 'message', ...message },
        previous_message: { type: 'message', ...previous, channel: undefined },
        event_ts: edited.ts,
        ts: edited.ts,
        channel_type: type,
      },
      shared,
    ),
  ];
  if (type !== 'im' && text.includes(`<@${tenant.workspace.botUserId}>`)) {
    const [mention] = messageEvents(tenant, changed).filter(({ event }) => event.type === 'app_mention');
    if (mention) events.push({ ...mention, event: { ...mention.event, edited } });
  }
  return events;
}

/** What a deleted thread root becomes while its replies stay (conversations.replies returns it so). */
export const TOMBSTONE = {
  subtype: 'tombstone',
  text: 'This message was deleted.',
  user: 'USLACKBOT',
  hidden: true,
} as const;

/**
 * The event Slack delivers when a person deletes their message (`previous`, as it was): `message_deleted` naming
 * its `deleted_ts`; a thread root with replies is not removed but becomes a `tombstone`, sent as `message_changed`.
 */
export function deleteEvent(tenant: Tenant, previous: StoredMessage, tombstone: boolean): EventEnvelope {
  const { channel, ...message } = previous;
  const at = eventTs();
  const base = { type: 'message', channel, hidden: true, event_ts: at, ts: at, channel_type: channelType(channel) };
  const before = { type: 'message', ...message };
  return eventEnvelope(
    tenant,
    tombstone
      ? {
          ...base,
          subtype: 'message_changed',
          message: { type: 'message', ts: previous.ts, thread_ts: previous.ts, ...TOMBSTONE },
          previous_message: before,
        }
      : { ...base, subtype: 'message_deleted', deleted_ts: previous.ts, previous_message: before },
    !!tenant.channel(channel)?.sharedWith?.length,
  );
}

/**
 * A file in a Slack Connect channel's event: only its id, and `file_access: check_file_info`, which says to ask
 * `files.info` for the rest (docs.slack.dev, `message/file_share`, "Slack Connect files").
 */
function slackConnectFile({ id }: { id: string }) {
  return { id, mode: 'file_access', file_access: 'check_file_info', created: 0, timestamp: 0, user: '' };
}

/** An event's `event_ts`: when it happened, as Slack writes a timestamp. */
export function eventTs(at = Date.now()): string {
  return `${Math.floor(at / 1000)}.${String(at % 1000).padStart(3, '0')}000`;
}

/**
 * Slack's published examples, as its reference pages and its Events API schema (slackapi/slack-api-specs,
 * `events-api`) print them: the wrapper's example team `T1H9RESGL` and app `A2H9RFS1A`, the `team_access_revoked`
 * page's organisation `EXXXXX`. They name no workspace a test serves: an app that acts on one removes itself for a
 * stranger.
 */
export const PUBLISHED_EXAMPLES = {
  app_uninstalled: (): EventEnvelope => ({
    token: 'XXYYZZ',
    team_id: 'T1H9RESGL',
    api_app_id: 'A2H9RFS1A',
    event: { type: 'app_uninstalled', event_ts: '1525215129.000001' },
    type: 'event_callback',
    event_id: newEventId(),
    event_time: 1525215129,
    authed_users: ['U061F7AUR'],
  }),
  tokens_revoked: (): EventEnvelope => ({
    token: 'XXYYZZ',
    team_id: 'T1H9RESGL',
    api_app_id: 'A2H9RFS1A',
    event: { type: 'tokens_revoked', tokens: { oauth: ['UXXXXXXXX'], bot: ['UXXXXXXXX'] } },
    type: 'event_callback',
    event_id: newEventId(),
    event_time: 1234567890,
  }),
  team_access_revoked: (): EventEnvelope => ({
    token: 'XXYYZZ',
    team_id: 'T123ABC456',
    enterprise_id: 'EXXXXX',
    api_app_id: 'A123ABC456',
    event: { type: 'team_access_revoked', team_ids: ['T1XX3', 'TXX34'] },
    type: 'event_callback',
    authorizations: [{ enterprise_id: 'EXXXXX', team_id: 'T123ABC456', is_bot: false, is_enterprise_install: false }],
    event_id: newEventId(),
    event_time: 123456789,
  }),
};
