import type { Deps } from '../../deps.js';
import type { Message } from '../../slack/message.js';
import type { Audience } from '../../slack/reply.js';
import type { ReportQuery } from '../date-range.js';

/** What a door needs: the projects and the clock to decode with, a way to refuse, and where to hand work on. */
export type DoorDeps = Pick<Deps, 'log' | 'now' | 'projects' | 'replies' | 'dispatch'>;

/** The query's own project, else the channel's; undefined when that is a project this bot does not serve. */
export function projectOf(deps: Pick<Deps, 'projects'>, query: ReportQuery, channel: string): string | undefined {
  const project = query.project ?? deps.projects.forChannel(channel);
  return deps.projects.knows(project) ? project : undefined;
}

/** Answers, privately and after the ack, what a door does not hand on: usage, a refusal, a forged button. */
export function answerAtDoor(deps: DoorDeps, audience: Audience, message: Message): Promise<void> {
  return deps.replies.privately(audience, message);
}
