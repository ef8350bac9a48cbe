import { isDeepStrictEqual } from 'node:util';
import type { Deps } from '../../deps.js';
import { NOT_IN_CHANNEL, slackErrorCode } from '../../slack/errors.js';
import type { DigestRequest } from '../requests.js';
import { type DigestKind, VISITORS_DIGEST } from './kind.js';
import type { DigestResult } from './messages.js';
import { type Schedule, WEEKDAYS } from './schedule.js';
import { type SchedulerDeps, scheduleDigest, unscheduleDigest } from './scheduler.js';
import { deleteSubscription, getSubscription, lastSent, type Subscription, saveSubscription } from './store.js';

/**
 * Shows, ends or sets the conversation's digest. Who may end or set one (the `/agent` allow-lists) is decided at
 * the door, before a request is made.
 */
export async function manageDigest(
  deps: ManageDeps,
  request: DigestRequest,
  kind = VISITORS_DIGEST,
): Promise<DigestResult> {
  const { channel } = request.audience;
  switch (request.command.kind) {
    case 'show':
      return {
        kind: 'shown',
        subscription: await getSubscription(deps, channel, kind),
        lastSent: await lastSent(deps, channel, kind),
      };
    case 'off':
      return turnOff(deps, request, kind);
    case 'subscribe':
      return subscribe(deps, request, request.command.schedule, kind);
  }
}

type ManageDeps = SchedulerDeps & Pick<Deps, 'log' | 'now' | 'slack'>;

/** The conversation's subscription, or the error the store answered with. */
const readBefore = (deps: ManageDeps, channel: string, kind: DigestKind) =>
  getSubscription(deps, channel, kind).then(
    (subscription) => ({ subscription }),
    (error: unknown) => ({ error }),
  );

/** The store did not answer: the change was not made (logged, as the task's error would be). */
function unchanged(
  deps: ManageDeps,
  request: DigestRequest,
  kind: DigestKind,
  still: Subscription | undefined | 'unknown',
  error: unknown,
): DigestResult {
  const { channel } = request.audience;
  deps.log.error(`${kind.feature}.digest_not_changed`, { channel, change: request.command.kind, error });
  return { kind: 'unchanged', still, typed: asTyped(request, kind) };
}

async function turnOff(deps: ManageDeps, request: DigestRequest, kind: DigestKind): Promise<DigestResult> {
  const { channel, userId } = request.audience;
  const before = await readBefore(deps, channel, kind);
  if ('error' in before) return unchanged(deps, request, kind, 'unknown', before.error);
  let existed: boolean;
  try {
    existed = await deleteSubscription(deps, channel, kind);
  } catch (error) {
    // Its answer lost: whether it went is read again (not answering either, the task fails, unsure).
    const still = await getSubscription(deps, channel, kind);
    if (still) return unchanged(deps, request, kind, still, error);
    existed = before.subscription !== undefined;
  }
  await unscheduleLeft(deps, channel, kind);
  deps.log.info(`${kind.feature}.digest_unsubscribed`, { user: userId, channel, existed });
  return { kind: 'ended', existed };
}

async function subscribe(
  deps: ManageDeps,
  request: DigestRequest,
  schedule: Schedule,
  kind: DigestKind,
): Promise<DigestResult> {
  const { project, audience, groupDm = false, typed } = request;
  const { channel, userId } = audience;
  const code = await cannotPost(deps, audience, groupDm);
  if (code) {
    const place = groupDm ? 'group_dm' : channel.startsWith('D') ? 'dm' : 'channel';
    return { kind: 'cannot_post', schedule, code, place, ...(typed && { typed }) };
  }
  const read = await readBefore(deps, channel, kind);
  if ('error' in read) return unchanged(deps, request, kind, 'unknown', read.error);
  const before = read.subscription;
  // The same subscription set up again keeps its start: an occurrence still being tried must not read as
  // before it, and be dropped unsaid.
  const same = before?.project === project && isDeepStrictEqual(before.schedule, schedule);
  const createdAt = same ? before.createdAt : deps.now();
  const { teamId, enterpriseId } = deps.workspace;
  const team = enterpriseId && teamId ? { team: teamId } : {};
  const subscription = { channel, project, schedule, createdBy: userId, createdAt, ...team };
  try {
    await saveSubscription(deps, subscription, kind);
    await scheduleDigest(deps, subscription, kind);
  } catch (error) {
    // Not done: so the conversation's digest is put back as it was, not left saved without its scheduler (shown,
    // never posted). The scheduler's write may have been made, its answer lost. Not put back, it is not known.
    const restored = await putBack(deps, channel, before, kind).then(
      () => true,
      (undone: unknown) =>
        deps.log.error(`${kind.feature}.digest_not_put_back`, { channel, part: 'subscription', error: undone }),
    );
    if (!restored) throw error;
    return unchanged(deps, request, kind, before, error);
  }
  deps.log.info(`${kind.feature}.digest_subscribed`, { user: userId, channel, cadence: schedule.cadence });
  return { kind: 'subscribed', schedule, lastSent: await lastSent(deps, channel, kind) };
}

/** The command as the person typed it, or as it reads when the door did not keep it. */
function asTyped({ command, typed }: DigestRequest, kind: DigestKind): string {
  if (typed) return typed;
  if (command.kind !== 'subscribe') return `${kind.command} digest${command.kind === 'off' ? ' off' : ''}`;
  const { cadence, hour, minute, weekday, tz } = command.schedule;
  const day = weekday === undefined ? '' : ` ${WEEKDAYS[weekday]}`;
  const time = `${String(hour).padStart(2, '0')}:${String(minute).padStart(2, '0')}`;
  return `${kind.command} digest ${cadence}${day} ${time}${tz ? '' : ' utc'}`;
}

/**
 * The conversation's digest as it was before a change that did not go through: its subscription (what the person is
 * told, and what each occurrence reads), then its scheduler. A scheduler not written back is logged; the next worker
 * start gives a stored subscription its missing scheduler (`adoptDigests`). Throws only when the subscription was not.
 */
async function putBack(
  deps: SchedulerDeps & Pick<Deps, 'log'>,
  channel: string,
  before: Subscription | undefined,
  kind: DigestKind,
) {
  if (!before) {
    await deleteSubscription(deps, channel, kind);
    return unscheduleLeft(deps, channel, kind);
  }
  await saveSubscription(deps, before, kind);
  await scheduleDigest(deps, before, kind).catch((error: unknown) =>
    deps.log.error(`${kind.feature}.digest_not_put_back`, { channel, part: 'scheduler', error }),
  );
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
