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
import type { Sent, Subscription } from './store.js';
import type { DigestResult } from './subscribe.js';

/** Every sentence `/visitors digest …` (and `/insights digest …`: `DigestKind`) says to the person who typed it. */

export const digestCopy = {
  /** A schedule that cannot be read: the problem, what the person wrote, and how to subscribe. */
  invalid: (problem: string, wrote: string, kind = VISITORS_DIGEST) =>
    `:warning: ${problem}\nYou wrote: ${inlineCode(wrote, 200)}\n${kind.help}`,
  refused: 'Only the people and channels allowed to use `/agent` can change this conversation’s digest.',
  /** `/visitors digest …` not done (see `Unavailable` in src/task.ts): the digest is as it was. */
  unavailable:
    ':warning: My storage is not answering right now, so the digest is as it was. Please try again in a minute.',
  restarting:
    'The app was restarting before it could do this, so the digest is as it was. Please run it again in a minute.',
  noWorker: (maxAgeMinutes: number) =>
    `This is queued, but no worker is running to take it on. It is done when one starts; if none does within ${maxAgeMinutes} minutes, nothing is done and I tell you. Let whoever runs this app know.`,
  expired: (maxAgeMinutes: number) =>
    `This waited too long for a worker (over ${maxAgeMinutes} minutes), so the digest is as it was. Please run it again.`,
};

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

/** What the person hears when a `… digest` request is not done: the digest is as it was; `failed` names the command. */
export function digestUnavailable(failed: string) {
  const words: Record<Unavailable, string> = {
    store: digestCopy.unavailable,
    restarting: digestCopy.restarting,
    no_worker: digestCopy.noWorker(TASK_MAX_AGE_MINUTES),
    expired: digestCopy.expired(TASK_MAX_AGE_MINUTES),
    failed,
  };
  return (deps: Pick<Deps, 'replies'>, { audience }: DigestRequest, why: Unavailable) =>
    deps.replies.privately(audience, notice(words[why]));
}
