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
  /** The bot cannot post in the channel (not a member, or the channel is hidden from it): nothing was set up. */
  | { kind: 'cannot_post'; schedule: Schedule; code: string; groupDm?: boolean };

/**
 * Shows, ends or sets the conversation's digest. Who may end or set one (the `/agent` allow-lists) is decided at
 * the door, before a request is made.
 */
export async function manageDigest(
  deps: SchedulerDeps & Pick<Deps, 'log' | 'now' | 'slack'>,
  { command, project, audience, groupDm = false }: DigestRequest,
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
      const code = await cannotPost(deps, channel, groupDm);
      if (code) return { kind: 'cannot_post', schedule, code, ...(groupDm && { groupDm }) };
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
 * not show it the channel (or it is archived). A DM (`D…`) has no membership to check, and asking would need
 * `im:read`, which the app does not have; a failure to ask is no reason to refuse. In a group DM
 * `conversations.info` would need `mpim:read` (not asked for either), so its history is read instead
 * (`mpim:history`, which reading a digest back needs anyway): Slack hides a group DM from a bot not in it.
 */
async function cannotPost(deps: Pick<Deps, 'slack'>, channel: string, groupDm: boolean): Promise<string | undefined> {
  if (channel.startsWith('D')) return undefined;
  try {
    if (groupDm) {
      await deps.slack.conversations.history({ channel, limit: 1 });
      return undefined;
    }
    const info = await deps.slack.conversations.info({ channel });
    return info.channel?.is_member === false ? 'not_in_channel' : undefined;
  } catch (error) {
    const code = slackErrorCode(error);
    return NOT_IN_CHANNEL.has(code) ? code : undefined;
  }
}
