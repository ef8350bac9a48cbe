import { takeProjectOption } from '../../config/project-option.js';
import { describeProjects } from '../../config/projects.js';
import { type Message, notice } from '../../slack/message.js';
import { inlineCode } from '../../slack/mrkdwn.js';
import type { Audience } from '../../slack/reply.js';
import { parseVisitorsCommand, plainPunctuation } from '../date-range.js';
import { VISITORS_DIGEST } from '../digest/kind.js';
import { digestCopy } from '../digest/messages.js';
import { parseDigestCommand } from '../digest/schedule.js';
import { errorCopy, helpMessage } from '../messages.js';
import type { DigestRequest, ReportRequest } from '../requests.js';
import { type DoorDeps, projectOf } from './door-kit.js';

// How `/visitors`' words read: a report's or a digest's request, or the answer instead. The door (`command.ts`) hands
// the request on; the assistant pane and `/insights` read their words with the same functions.

export const COMMAND = '/visitors';

/** The words after `/visitors [--project id] digest`, and the whole text as typed (echoed when it cannot be read). */
export type DigestWords = { project?: string; words: string[]; text: string };

/** What the command's text asks for (`parsed`, for the log): work to hand on, or the door's own answer. */
export type Decoded = { parsed: string } & (
  | { answer: Message }
  | { task: 'report' | 'chart'; request: ReportRequest }
  | { task: 'digest'; request: DigestRequest }
);

/** Who asked where (in a group DM or not), and the zone of their days. */
export type Asker = { audience: Audience; tz: string; groupDm?: boolean };

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
    // What was typed comes back with the problem: Slack shows nobody the command it sent.
    const problem =
      parsed.kind === 'invalid' ? `${parsed.problem}\nYou wrote: ${inlineCode(`${COMMAND} ${text}`, 200)}` : undefined;
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
  { audience, tz, groupDm }: Asker,
  allowed: boolean,
  kind = VISITORS_DIGEST,
): { answer: Message } | { task: 'digest'; request: DigestRequest } {
  const command = parseDigestCommand(digest.words, tz, kind.cadences);
  if (command.kind === 'invalid') {
    return { answer: notice(digestCopy.invalid(command.problem, `${kind.command} ${digest.text}`, kind)) };
  }
  const project = digest.project ?? deps.projects.forChannel(audience.channel);
  // Showing or ending this conversation's digest needs no project: a workspace that disconnected Mintlify knows none.
  const needsProject = command.kind === 'subscribe' || digest.project !== undefined;
  if (needsProject && !deps.projects.knows(project)) {
    const projects = describeProjects(deps.projects, audience.channel, kind.command);
    return { answer: notice(errorCopy.unknownProject(project, projects)) };
  }
  if (command.kind !== 'show' && !allowed) {
    deps.log.info(`${kind.feature}.digest_refused`, { user: audience.userId, channel: audience.channel });
    return { answer: notice(digestCopy.refused) };
  }
  const typed = `${kind.command} ${digest.text}`;
  return { task: 'digest', request: { command, project, audience, ...(groupDm && { groupDm }), typed } };
}

/** The words after `[--project id] digest`, or undefined when the command is not about digests. */
export function digestWords(text: string): DigestWords | undefined {
  const option = takeProjectOption(plainPunctuation(text));
  if ('missing' in option) return undefined; // the report parser explains `--project`
  const [first, ...words] = option.rest.toLowerCase().split(/\s+/);
  if (first !== 'digest') return undefined;
  return { ...(option.project && { project: option.project }), words: words.filter(Boolean), text };
}

/** Reading a command's `digest …` words, as `/insights digest` shares it (handed over by the composition). */
export const digestReading = { digestWords, decodeDigest };
export type DigestReading = typeof digestReading;
