import type { AllMiddlewareArgs, SlackCommandMiddlewareArgs } from '@slack/bolt';
import { takeProjectOption } from '../../config/project-option.js';
import { describeProjects } from '../../config/projects.js';
import { accessOf } from '../../slack/access.js';
import { decodeSlackText } from '../../slack/decode.js';
import type { Message } from '../../slack/message.js';
import type { Audience } from '../../slack/reply.js';
import { parseVisitorsCommand } from '../date-range.js';
import { VISITORS_DIGEST } from '../digest/kind.js';
import { digestCopy } from '../digest/messages.js';
import { parseDigestCommand } from '../digest/schedule.js';
import { errorCopy, helpMessage, notice } from '../messages.js';
import type { DigestRequest, ReportRequest } from '../requests.js';
import { visitorsTasks } from '../visitors-tasks.js';
import { answerAtDoor, type DoorDeps, projectOf, zoneOf } from './door-kit.js';

export const COMMAND = '/visitors';

export type CommandArgs = Pick<SlackCommandMiddlewareArgs & AllMiddlewareArgs, 'ack' | 'command' | 'context'>;

/** The words after `/visitors [--project id] digest`, and the whole text as typed (echoed when it cannot be read). */
export type DigestWords = { project?: string; words: string[]; text: string };

/** What the command's text asks for (`parsed`, for the log): work to hand on, or the door's own answer. */
type Decoded = { parsed: string } & (
  | { answer: Message }
  | { task: 'report' | 'chart'; request: ReportRequest }
  | { task: 'digest'; request: DigestRequest }
);

/**
 * `/visitors [--project id] [range] [top N] [chart]` and `/visitors [--project id] digest …`. Acks at once (Slack
 * never waits on the service), then hands on one task: a report, a chart, or a change to the digest.
 */
export async function visitorsCommand(deps: DoorDeps, { ack, command, context }: CommandArgs): Promise<void> {
  await ack();
  // A malformed form body can repeat `text`, which then arrives as an array: read it as no text (usage).
  const text = typeof command.text === 'string' ? decodeSlackText(command.text) : '';
  const audience = { userId: command.user_id, channel: command.channel_id, responseUrl: command.response_url };
  const digest = digestWords(text);
  // Days, and a digest's hour, are the person's: the zone they set in Slack.
  const tz = await zoneOf(deps, audience.userId);
  const decoded: Decoded = digest
    ? { parsed: 'digest', ...decodeDigest(deps, digest, { audience, tz }, accessOf(context).allowed) }
    : decodeReport(deps, text, { audience, tz });
  deps.log.info('visitors.command', { user: audience.userId, channel: audience.channel, parsed: decoded.parsed });
  if ('answer' in decoded) return answerAtDoor(deps, audience, decoded.answer);
  // One call per request type, so the compiler checks each task against its own data.
  if (decoded.task === 'digest') return deps.dispatch(visitorsTasks.digest, decoded.request);
  await deps.dispatch(visitorsTasks[decoded.task], decoded.request);
}

/** Who asked where, and the zone of their days. */
export type Asker = { audience: Audience; tz: string };

/** A report's words: its request, or the answer instead; `place` is the channel whose project it is about. */
export function decodeReport(
  deps: DoorDeps,
  text: string,
  { audience, tz }: Asker,
  place = audience.channel,
): Exclude<Decoded, { task: 'digest' }> {
  const parsed = parseVisitorsCommand(text, deps.now(), tz);
  const projects = () => describeProjects(deps.projects, place, COMMAND);
  if (parsed.kind !== 'report') {
    const problem = parsed.kind === 'invalid' ? parsed.problem : undefined;
    return { parsed: parsed.kind, answer: helpMessage(deps.now(), problem, projects(), tz) };
  }
  const { query } = parsed;
  const project = projectOf(deps, query, place);
  if (!project)
    return { parsed: parsed.kind, answer: notice(errorCopy.unknownProject(query.project ?? '', projects())) };
  const task = parsed.chart ? 'chart' : 'report';
  return { parsed: parsed.kind, task, request: { query, project, audience } };
}

/**
 * `… digest [words]` of `kind`'s command: its request (show, end or set this conversation's digest), or the answer
 * instead. Anyone may look at the digest; ending or setting it follows the `/agent` allow-lists (`allowed`).
 */
export function decodeDigest(
  deps: DoorDeps,
  digest: DigestWords,
  { audience, tz }: Asker,
  allowed: boolean,
  kind = VISITORS_DIGEST,
): { answer: Message } | { task: 'digest'; request: DigestRequest } {
  const project = digest.project ?? deps.projects.forChannel(audience.channel);
  if (!deps.projects.knows(project)) {
    const projects = describeProjects(deps.projects, audience.channel, kind.command);
    return { answer: notice(errorCopy.unknownProject(project, projects)) };
  }
  const command = parseDigestCommand(digest.words, tz, kind.cadences);
  if (command.kind === 'invalid') {
    return { answer: notice(digestCopy.invalid(command.problem, `${kind.command} ${digest.text}`, kind)) };
  }
  if (command.kind !== 'show' && !allowed) {
    deps.log.info(`${kind.feature}.digest_refused`, { user: audience.userId, channel: audience.channel });
    return { answer: notice(digestCopy.refused) };
  }
  return { task: 'digest', request: { command, project, audience } };
}

/** The words after `[--project id] digest`, or undefined when the command is not about digests. */
export function digestWords(text: string): DigestWords | undefined {
  const option = takeProjectOption(text);
  if ('missing' in option) return undefined; // the report parser explains `--project`
  const [first, ...words] = option.rest.toLowerCase().split(/\s+/);
  if (first !== 'digest') return undefined;
  return { ...(option.project && { project: option.project }), words: words.filter(Boolean), text };
}
