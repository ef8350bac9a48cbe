import { isDeepStrictEqual } from 'node:util';
import type { Deps } from '../../deps.js';
import { NOT_IN_CHANNEL, slackErrorCode } from '../../slack/errors.js';
import type { DigestRequest } from '../requests.js';
import { VISITORS_DIGEST } from './kind.js';
import type { Schedule } from './schedule.js';
import { endSubscription, type SchedulerDeps, scheduleDigest } from './scheduler.js';
import { getSubscription, lastSent, type Sent, type Subscription, saveSubscription } from './store.js';

export type DigestResult =
  /** `lastSent`: the period the channel's digest last went out for, which the next time skips when it is the same. */
  | { kind: 'shown'; subscription: Subscription | undefined; lastSent?: Sent | undefined }
  | { kind: 'ended'; existed: boolean }
  | { kind: 'subscribed'; schedule: Schedule; lastSent?: Sent | undefined }
  /**
   * The bot cannot post in the conversation (not a member, or it is hidden from the bot: a group DM it is not in, a
   * DM between two people): nothing was set up. `typed`: the command as typed, echoed.
   */
  | { kind: 'cannot_post'; schedule: Schedule; code: string; place: 'channel' | 'group_dm' | 'dm'; typed?: string };

/**
 * Shows, ends or sets the conversation's digest. Who may end or set one (the `/agent` allow-lists) is decided at
 * the door, before a request is made.
 */
export async function manageDigest(
  deps: SchedulerDeps & Pick<Deps, 'log' | 'now' | 'slack'>,
  { command, project, audience, groupDm = false, typed }: DigestRequest,
  kind = VISITORS_DIGEST,
): Promise<DigestResult> {
  const { channel, userId } = audience;
  switch (command.kind) {
    case 'show':
      return {
        kind: 'shown',
        subscription: await getSubscription(deps, channel, kind),
        lastSent: await lastSent(deps, channel, kind),
      };
    case 'off': {
      const existed = await endSubscription(deps, channel, kind);
      deps.log.info(`${kind.feature}.digest_unsubscribed`, { user: userId, channel, existed });
      return { kind: 'ended', existed };
    }
    case 'subscribe': {
      const { schedule } = command;
      const code = await cannotPost(deps, audience, groupDm);
      if (code) {
        const place = groupDm ? 'group_dm' : channel.startsWith('D') ? 'dm' : 'channel';
        return { kind: 'cannot_post', schedule, code, place, ...(typed && { typed }) };
      }
      // The same subscription set up again keeps its start: an occurrence still being tried must not read as
      // before it, and be dropped unsaid.
      const before = await getSubscription(deps, channel, kind);
      const same = before?.project === project && isDeepStrictEqual(before.schedule, schedule);
      const createdAt = same ? before.createdAt : deps.now();
      const subscription = { channel, project, schedule, createdBy: userId, createdAt };
      await saveSubscription(deps, subscription, kind);
      await scheduleDigest(deps, subscription, kind);
      deps.log.info(`${kind.feature}.digest_subscribed`, { user: userId, channel, cadence: schedule.cadence });
      return { kind: 'subscribed', schedule, lastSent: await lastSent(deps, channel, kind) };
    }
  }
}

/**
 * Why the bot could not post in `channel`, if it could not: it is not a member (`is_member: false`), or Slack will
 * not show it the channel (or it is archived). A DM (`D…`) is the bot's own with the person when it is the one
 * `conversations.open` gives (`im:write`); any other is a DM between two people, which the bot is never in and
 * Slack refuses its posts to (`channel_not_found`). Asking `conversations.info` would need `im:read`, which the app
 * does not have. In a group DM it would need `mpim:read` (not asked for either), so its history is read instead
 * (`mpim:history`, which reading a digest back needs anyway): Slack hides a group DM from a bot not in it. A failure
 * to ask is no reason to refuse.
 */
async function cannotPost(
  deps: Pick<Deps, 'slack'>,
  { channel, userId }: { channel: string; userId: string },
  groupDm: boolean,
): Promise<string | undefined> {
  try {
    if (channel.startsWith('D')) {
      const own = (await deps.slack.conversations.open({ users: userId })).channel?.id;
      return own && own !== channel ? 'channel_not_found' : undefined;
    }
    if (groupDm) {
      await deps.slack.conversations.history({ channel, limit: 1 });
      return undefined;
    }
    const info = await deps.slack.conversations.info({ channel });
    return info.channel?.is_member === false ? 'not_in_channel' : undefined;
  } catch (error) {
    const code = slackErrorCode(error);
    return !channel.startsWith('D') && NOT_IN_CHANNEL.has(code) ? code : undefined;
  }
}
