import type { Deps } from '../../deps.js';
import { type Message, notice } from '../../slack/message.js';
import { inlineCode, userMention } from '../../slack/mrkdwn.js';
import { TASK_MAX_AGE_MINUTES, type Unavailable } from '../../task.js';
import { rangeCommand } from '../date-range.js';
import { formatRange, formatTime } from '../format.js';
import type { DayRange } from '../periods.js';
import type { DigestRequest } from '../requests.js';
import { type DigestKind, VISITORS_DIGEST } from './kind.js';
import { type Cadence, describeSchedule, digestPeriod, nextDue, type Schedule } from './schedule.js';
import type { Sent, Subscription, SubscriptionDeps } from './store.js';

/** Every sentence `/visitors digest …` (and `/insights digest …`: `DigestKind`) says to the person who typed it. */

export const digestCopy = {
  /** A schedule that cannot be read: the problem, what the person wrote, and how to subscribe. */
  invalid: (problem: string, wrote: string, kind = VISITORS_DIGEST) =>
    `:warning: ${problem}\nYou wrote: ${inlineCode(wrote, 200)}\n${kind.help}`,
  refused: 'Only the people and channels allowed to use `/agent` can change this conversation’s digest.',
  noWorker: (maxAgeMinutes: number) =>
    `This is queued, but no worker is running to take it on. It is done when one starts; if none does within ${maxAgeMinutes} minutes, nothing is done and I tell you. Let whoever runs this app know.`,
};

/** What `manageDigest` (subscribe.ts) did, worded by `digestAnswer`. */
export type DigestResult =
  /** `lastSent`: the period the channel's digest last went out for, which the next time skips when it is the same. */
  | { kind: 'shown'; subscription: Subscription | undefined; lastSent?: Sent | undefined }
  | { kind: 'ended'; existed: boolean }
  | { kind: 'subscribed'; schedule: Schedule; lastSent?: Sent | undefined }
  /**
   * The bot cannot post in the conversation (not a member, or it is hidden from the bot: a group DM it is not in, a
   * DM between two people): nothing was set up. `typed`: the command as typed, echoed.
   */
  | { kind: 'cannot_post'; schedule: Schedule; code: string; place: 'channel' | 'group_dm' | 'dm'; typed?: string }
  /** The store did not answer: the change was not made, and the digest is `still` this (none; `unknown`: not read). */
  | { kind: 'unchanged'; still: Subscription | undefined | 'unknown'; typed: string };

/** The private answer to `/visitors digest …` (or `kind`'s command) once it was done. */
export function digestAnswer(result: DigestResult, nowMs: number, kind: DigestKind = VISITORS_DIGEST): Message {
  const name = `${kind.feature} digest`;
  switch (result.kind) {
    case 'shown': {
      const current = result.subscription;
      if (!current) return notice(`This conversation has no ${name}.\n${kind.help}`);
      return notice(
        `This conversation gets the ${name} of project ${inlineCode(current.project)} ${describeSchedule(current.schedule)}, set up by ${userMention(current.createdBy)}. ` +
          `Next: ${nextText(current.schedule, nowMs, result.lastSent)}. \`${kind.command} digest off\` ends it.`,
      );
    }
    case 'ended':
      return notice(result.existed ? `The ${name} for this conversation is off.` : `This conversation had no ${name}.`);
    case 'subscribed':
      return notice(
        `:white_check_mark: This conversation will get the ${name} ${describeSchedule(result.schedule)}. ` +
          `Next: ${nextText(result.schedule, nowMs, result.lastSent)}.`,
      );
    case 'unchanged':
      return digestNotChanged({ cause: 'My storage did not answer', still: result.still, typed: result.typed }, kind);
    case 'cannot_post': {
      const typed = inlineCode(result.typed ?? `${kind.command} digest ${result.schedule.cadence}`, 200);
      if (result.place === 'dm')
        return notice(
          `:warning: I can’t post in a DM between two people, so no digest was set up for ${typed}. Run it in a ` +
            'channel I’m in, or in your DM with me (my Messages tab).',
        );
      if (result.place === 'group_dm')
        return notice(
          `:warning: I’m not in this group DM, so no digest was set up for ${typed}. Run it in a group DM started ` +
            'with me in it, or in a channel I’m in.',
        );
      return notice(
        `:warning: I can’t post in this channel (${inlineCode(result.code)}), so no digest was set up for ${typed}. ` +
          'Add me with `/invite @Mintlify` (or your app’s name), then run the command again.',
      );
    }
  }
}

/**
 * When the next digest goes out and the period it covers. A time whose period went out already (`lastSent`: the
 * schedule changed after that day's digest) is skipped, as its run skips it.
 */
function nextText(schedule: Schedule, nowMs: number, lastSent?: Sent): string {
  const sentAlready = (at: number) =>
    lastSent?.cadence === schedule.cadence && digestPeriod(schedule, at).from === lastSent.from;
  let next = nextDue(schedule, nowMs);
  if (next !== undefined && sentAlready(next)) next = nextDue(schedule, next);
  if (next === undefined) return 'not scheduled';
  const period = digestPeriod(schedule, next);
  return `${formatTime(next, schedule.tz)}, covering ${formatRange(period.from, period.to)}`;
}

/** The private note to whoever set up a digest that Slack refused for good: it has ended, why, and the fix. */
export function digestEndedNote(channel: string, cadence: string, code: string, kind = VISITORS_DIGEST): Message {
  const fix = NOT_IN_CHANNEL_FIXES.has(code)
    ? 'Add me with `/invite @Mintlify` (or your app’s name) and set it up again'
    : 'Set it up again once the channel can take it';
  return notice(
    `:warning: The ${cadence} ${kind.feature} digest in <#${channel}> has ended: Slack refused it (${inlineCode(code)}). ` +
      `${fix} with \`${kind.command} digest ${cadence}\`.`,
  );
}

/** The private note to whoever set up a digest of a project the app no longer serves: it has ended. */
export function digestProjectGoneNote(channel: string, cadence: string, project: string, kind = VISITORS_DIGEST) {
  return notice(
    `:warning: The ${cadence} ${kind.feature} digest in <#${channel}> has ended: the app no longer serves project ` +
      `${inlineCode(project)}. \`${kind.command} digest ${cadence}\` there sets one up for the project it uses now.`,
  );
}

/**
 * The note to whoever set up a digest whose stored subscription no longer reads (an older release wrote it, or its
 * zone is no longer known): it has ended, and the command that sets it up again.
 */
export function digestUnreadableNote(channel: string, cadence: Cadence | undefined, kind = VISITORS_DIGEST): Message {
  const which = cadence ? `${cadence} ${kind.feature}` : kind.feature;
  return notice(
    `:warning: The ${which} digest in <#${channel}> has ended: its saved settings no longer read (an earlier version ` +
      `of the app saved them, or their time zone is one this version does not know). ` +
      `${inlineCode(`${kind.command} digest ${cadence ?? 'weekly'}`)} there sets it up again.`,
  );
}

/**
 * The private note to whoever set up a digest whose occurrence did not go out (its last try failed, or the app
 * restarted with it waiting): the period it would have covered, the command that shows it, and that it stays on.
 */
export function digestMissedNote(
  { channel, project, schedule }: Subscription,
  { period, next }: { period: DayRange; next: number | undefined },
  why: 'failed' | 'restarting',
  kind = VISITORS_DIGEST,
): Message {
  const cause =
    why === 'restarting'
      ? 'the app restarted before it went out'
      : 'Mintlify or Slack kept failing, on every try for about a quarter of an hour';
  const show = rangeCommand(kind.command, { ...period, project });
  const nextText = next === undefined ? '' : ` The next one is due ${formatTime(next, schedule.tz)}.`;
  return notice(
    `:warning: The ${schedule.cadence} ${kind.feature} digest in <#${channel}> covering ${formatRange(period.from, period.to)} ` +
      `did not go out: ${cause}. ${inlineCode(show)} shows that period now. It stays on.${nextText}`,
  );
}

const NOT_IN_CHANNEL_FIXES = new Set(['not_in_channel', 'channel_not_found']);

/**
 * A digest change not made (`cause`): the digest as it still is (`still`: its subscription, none, or not known), and
 * the command as typed, to run again. `maybe`: the change may have been made after all, so the person is sent to look.
 */
export function digestNotChanged(
  {
    cause,
    still,
    typed,
    maybe = false,
  }: { cause: string; still: Subscription | undefined | 'unknown'; typed: string | undefined; maybe?: boolean },
  kind = VISITORS_DIGEST,
): Message {
  const name = `${kind.feature} digest`;
  const show = `\`${kind.command} digest\``;
  const outcome = maybe
    ? `so your change may not have been made: ${show} shows the digest as it is now`
    : still === 'unknown'
      ? `so your change was not made and the digest is as it was (${show} shows it)`
      : still === undefined
        ? `so your change was not made: this conversation still has no ${name}`
        : `so your change was not made and the digest stays as it was: the ${name} of project ${inlineCode(still.project)} ${describeSchedule(still.schedule)}`;
  const again = typed
    ? `\nYou wrote: ${inlineCode(typed, 200)}. Please run it again in a minute.`
    : ' Please run it again in a minute.';
  return notice(`:warning: ${cause}, ${outcome}.${again}`);
}

/** Reads a conversation's subscription (`getSubscription`): given, so these words stand below the store. */
type ReadSubscription = (
  deps: SubscriptionDeps,
  channel: string,
  kind: DigestKind,
) => Promise<Subscription | undefined>;

/**
 * What the person hears when a `… digest` request is not done (see `Unavailable` in src/task.ts): not made, and the
 * digest as it still is (read with `digest.read`) when its store answers (not asked when the queue’s store
 * did not), with the command as typed. `failed` (a throw: the change may have been made) as given, where nothing was
 * typed.
 */
export function digestUnavailable(failed: string, digest: { kind: DigestKind; read: ReadSubscription }) {
  const causes: Record<Exclude<Unavailable, 'no_worker'>, string> = {
    store: 'My storage is not answering right now',
    restarting: 'The app was restarting before it could do this',
    expired: `This waited too long for a worker (over ${TASK_MAX_AGE_MINUTES} minutes)`,
    failed: 'Something went wrong on my side',
  };
  return async (deps: Pick<Deps, 'replies' | 'store' | 'instanceId'>, request: DigestRequest, why: Unavailable) => {
    const { audience, typed } = request;
    if (why === 'no_worker') return deps.replies.privately(audience, notice(digestCopy.noWorker(TASK_MAX_AGE_MINUTES)));
    if (why === 'failed' && !typed) return deps.replies.privately(audience, notice(failed));
    const { kind, read } = digest;
    const asked = why !== 'store' && why !== 'failed';
    const still = asked ? await read(deps, audience.channel, kind).catch(() => 'unknown' as const) : 'unknown';
    const words = { cause: causes[why], still, typed, maybe: why === 'failed' };
    return deps.replies.privately(audience, digestNotChanged(words, kind));
  };
}
