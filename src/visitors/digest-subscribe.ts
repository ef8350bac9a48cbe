import { isAllowed } from '../agent/access.js';
import type { Deps } from '../deps.js';
import { type DigestCommand, describeSchedule, digestPeriod, nextDue } from './digest-schedule.js';
import { deleteSubscription, getSubscription, saveSubscription } from './digest-store.js';
import { formatRange, formatUtcTime } from './format.js';
import { mention, notice, type SlackMessage } from './messages.js';

export interface DigestCaller {
  channel: string;
  userId: string;
  /** The project a new subscription reports on: `--project`, else the channel's. */
  project: string;
}

export const DIGEST_HELP =
  '*Digests* post this channel’s visitors on a schedule (UTC): `/visitors digest weekly` (Mondays 09:00), ' +
  '`/visitors digest weekly fri 16:30`, `/visitors digest daily 08:00`, `/visitors digest monthly` (the 1st, 09:00). ' +
  '`/visitors digest` shows the subscription, `/visitors digest off` ends it.';

/** Answers `/visitors digest …` privately; subscribing and ending follow the `/agent` allow-lists when set. */
export async function answerDigestCommand(
  deps: Deps,
  caller: DigestCaller,
  command: DigestCommand,
): Promise<SlackMessage> {
  const { channel, userId } = caller;
  if (command.kind === 'invalid') return notice(`:warning: ${command.problem}\n${DIGEST_HELP}`);
  if (command.kind === 'show') {
    const current = await getSubscription(deps, channel);
    if (!current) return notice(`This conversation has no visitors digest.\n${DIGEST_HELP}`);
    return notice(
      `This conversation gets the visitors digest of project \`${current.project}\` ${describeSchedule(current.schedule)}, set up by ${mention(current.createdBy)}. ` +
        `Next: ${nextText(current.schedule)}. \`/visitors digest off\` ends it.`,
    );
  }
  if (!isAllowed(deps.config, userId, channel)) {
    deps.log.info('visitors.digest_refused', { user: userId, channel });
    return notice('Only the people and channels allowed to use `/agent` can change this conversation’s digest.');
  }
  if (command.kind === 'off') {
    const existed = await deleteSubscription(deps, channel);
    deps.log.info('visitors.digest_unsubscribed', { user: userId, channel, existed });
    return notice(
      existed ? 'The visitors digest for this conversation is off.' : 'This conversation had no visitors digest.',
    );
  }
  const { project } = caller;
  await saveSubscription(deps, {
    channel,
    project,
    schedule: command.schedule,
    createdBy: userId,
    createdAt: deps.now(),
  });
  deps.log.info('visitors.digest_subscribed', { user: userId, channel, cadence: command.schedule.cadence });
  return notice(
    `:white_check_mark: This conversation will get the visitors digest ${describeSchedule(command.schedule)}. ` +
      `Next: ${nextText(command.schedule)}. Make sure I’m in the channel (\`/invite\` me if not).`,
  );

  function nextText(schedule: Parameters<typeof describeSchedule>[0]): string {
    const next = nextDue(schedule, deps.now());
    if (next === undefined) return 'not scheduled';
    const period = digestPeriod(schedule.cadence, next);
    return `${formatUtcTime(next)}, covering ${formatRange(period.from, period.to)}`;
  }
}
