import type { AllMiddlewareArgs, SlackCommandMiddlewareArgs } from '@slack/bolt';
import { describeProjects } from '../../config/projects.js';
import { accessOf } from '../../slack/access.js';
import { decodeSlackText } from '../../slack/decode.js';
import { notice } from '../../slack/message.js';
import { inlineCode } from '../../slack/mrkdwn.js';
import {
  type Asker,
  answerAtDoor,
  type DigestReading,
  type DigestWords,
  type DoorDeps,
  inGroupDm,
  zoneOf,
} from '../../visitors/index.js';
import { INSIGHTS_DIGEST } from '../digest/kind.js';
import { insightsTasks } from '../insights-tasks.js';
import { COMMAND, helpText, invalidText } from '../messages.js';
import { parseInsightsCommand } from '../parse.js';

export type CommandArgs = Pick<SlackCommandMiddlewareArgs & AllMiddlewareArgs, 'ack' | 'command' | 'context'>;

/**
 * `/insights [--project id] [feedback|searches|questions] [range] [top N]` and `/insights digest …`: acks at once,
 * then hands on the view (or the summary of the three), or the change to the weekly digest. Usage and the person's
 * own mistakes are answered privately, their text echoed.
 */
export async function insightsCommand(
  deps: DoorDeps,
  { ack, command, context }: CommandArgs,
  reading: DigestReading,
): Promise<void> {
  await ack();
  const text = typeof command.text === 'string' ? decodeSlackText(command.text) : '';
  const audience = { userId: command.user_id, channel: command.channel_id, responseUrl: command.response_url };
  const digest = reading.digestWords(text);
  const tz = await zoneOf(deps, audience.userId, digest !== undefined);
  if (digest) {
    const asker = { audience, tz, groupDm: inGroupDm(command) };
    return insightsDigest(deps, reading, digest, asker, accessOf(context).allowed);
  }
  const parsed = parseInsightsCommand(text, deps.now(), tz);
  const projects = () => describeProjects(deps.projects, audience.channel, COMMAND);
  deps.log.info('insights.command', { user: audience.userId, channel: audience.channel, parsed: parsed.kind });
  if (parsed.kind === 'help') return deps.replies.privately(audience, helpText(undefined, projects()));
  if (parsed.kind === 'invalid') return deps.replies.privately(audience, invalidText(text, parsed.problem, projects()));
  const { page } = parsed;
  const project = page.query.project ?? deps.projects.forChannel(audience.channel);
  if (!deps.projects.knows(project)) {
    return deps.replies.privately(audience, notice(`I don't serve a project ${inlineCode(project)}. ${projects()}`));
  }
  await deps.dispatch(insightsTasks.show, { ...page, project, audience });
}

/** `/insights digest [weekly [day] [HH:MM] | off]`: decoded as `/visitors digest` is, for the insights digest. */
async function insightsDigest(
  deps: DoorDeps,
  { decodeDigest }: DigestReading,
  digest: DigestWords,
  asker: Asker,
  allowed: boolean,
): Promise<void> {
  const decoded = decodeDigest(deps, digest, asker, allowed, INSIGHTS_DIGEST);
  const { audience } = asker;
  deps.log.info('insights.command', { user: audience.userId, channel: audience.channel, parsed: 'digest' });
  if ('answer' in decoded) return answerAtDoor(deps, audience, decoded.answer);
  await deps.dispatch(insightsTasks.digest, decoded.request);
}
