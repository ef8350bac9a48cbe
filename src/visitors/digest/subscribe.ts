import { isDeepStrictEqual } from 'node:util';
import type { Deps } from '../../deps.js';
import { NOT_IN_CHANNEL, slackErrorCode } from '../../slack/errors.js';
import type { DigestRequest } from '../requests.js';
import { type DigestKind, VISITORS_DIGEST } from './kind.js';
import type { Schedule } from './schedule.js';
import { type SchedulerDeps, scheduleDigest, unscheduleDigest } from './scheduler.js';
import {
  deleteSubscription,
  getSubscription,
  lastSent,
  type Sent,
  type Subscription,
  saveSubscription,
} from './store.js';

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
      const existed = await deleteSubscription(deps, channel, kind);
      await unscheduleLeft(deps, channel, kind);
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
      const { teamId, enterpriseId } = deps.workspace;
      const team = enterpriseId && teamId ? { team: teamId } : {};
      const subscription = { channel, project, schedule, createdBy: userId, createdAt, ...team };
      await saveSubscription(deps, subscription, kind);
      try {
        await scheduleDigest(deps, subscription, kind);
      } catch (error) {
        // The person hears it was not done: so the conversation's digest is put back as it was, not left saved
        // without its scheduler (shown, never posted). The scheduler's write may have been made, its answer lost.
        await putBack(deps, channel, before, kind).catch((undone: unknown) =>
          deps.log.error(`${kind.feature}.digest_not_put_back`, { channel, error: undone }),
        );
        throw error;
      }
      deps.log.info(`${kind.feature}.digest_subscribed`, { user: userId, channel, cadence: schedule.cadence });
      return { kind: 'subscribed', schedule, lastSent: await lastSent(deps, channel, kind) };
    }
  }
}

/**
 * The conversation's digest as it was before a change that did not go through: its subscription and scheduler, or
 * none. Where this fails too, the next worker start gives a stored subscription its missing scheduler (`adoptDigests`).
 */
async function putBack(
  deps: SchedulerDeps & Pick<Deps, 'log'>,
  channel: string,
  before: Subscription | undefined,
  kind: DigestKind,
) {
  if (before) {
    await saveSubscription(deps, before, kind);
    return scheduleDigest(deps, before, kind);
  }
  await deleteSubscription(deps, channel, kind);
  await unscheduleLeft(deps, channel, kind);
}

/**
 * Removes the scheduler of a subscription just deleted: the digest is off from there whatever befalls it, since one
 * left behind finds no subscription at its next time and ends (`runScheduled`).
 */
async function unscheduleLeft(deps: SchedulerDeps & Pick<Deps, 'log'>, channel: string, kind: DigestKind) {
  await unscheduleDigest(deps, channel, kind).catch((error: unknown) =>
    deps.log.warn(`${kind.feature}.digest_unschedule_failed`, { channel, error }),
  );
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
