import type { Deps } from '../../deps.js';
import type { Message } from '../../slack/message.js';
import { lookUpPerson } from '../../slack/people.js';
import type { Audience } from '../../slack/reply.js';
import { isTimeZone, UTC } from '../../zone.js';
import type { ReportQuery } from '../date-range.js';

/**
 * What a door needs: the projects, the clock and the person's zone (Slack and the store's cache) to decode with,
 * a way to refuse, and where to hand work on.
 */
export type DoorDeps = Pick<
  Deps,
  'log' | 'now' | 'projects' | 'replies' | 'dispatch' | 'slack' | 'store' | 'connection'
>;

/**
 * The IANA zone the person set in Slack (`users.info`, cached with their name for a day); UTC when Slack cannot say.
 * `fresh` for a digest, which keeps it: a person who moved sets their digest on their new clock at once.
 */
export async function zoneOf(deps: DoorDeps, userId: string, fresh = false): Promise<string> {
  const tz = (await lookUpPerson(deps, userId, fresh))?.tz;
  return tz && isTimeZone(tz) ? tz : UTC;
}

/** A slash command run in a group DM: Slack names those `mpdm-…` (`channel_name`); their ids look like channels'. */
export const inGroupDm = (command: { channel_name?: unknown }) =>
  typeof command.channel_name === 'string' && command.channel_name.startsWith('mpdm-');

/** The query's own project, else the channel's; undefined when that is a project this bot does not serve. */
export function projectOf(deps: Pick<Deps, 'projects'>, query: ReportQuery, channel: string): string | undefined {
  const project = query.project ?? deps.projects.forChannel(channel);
  return deps.projects.knows(project) ? project : undefined;
}

/** Answers, privately and after the ack, what a door does not hand on: usage, a refusal, a forged button. */
export function answerAtDoor(deps: DoorDeps, audience: Audience, message: Message): Promise<void> {
  return deps.replies.privately(audience, message);
}
