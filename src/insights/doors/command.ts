import type { SlackCommandMiddlewareArgs } from '@slack/bolt';
import { describeProjects } from '../../projects.js';
import { decodeSlackText } from '../../slack/decode.js';
import { inlineCode } from '../../slack/mrkdwn.js';
import { type DoorDeps, notice, zoneOf } from '../../visitors/index.js';
import { COMMAND, helpText, invalidText } from '../messages.js';
import { parseInsightsCommand } from '../parse.js';

export type CommandArgs = Pick<SlackCommandMiddlewareArgs, 'ack' | 'command'>;

/**
 * `/insights [--project id] [feedback|searches|questions] [range] [top N]`: acks at once, then hands on the view
 * (or the digest) for its project. Usage and the person's own mistakes are answered privately, their text echoed.
 */
export async function insightsCommand(deps: DoorDeps, { ack, command }: CommandArgs): Promise<void> {
  await ack();
  const text = typeof command.text === 'string' ? decodeSlackText(command.text) : '';
  const audience = { userId: command.user_id, channel: command.channel_id, responseUrl: command.response_url };
  const tz = await zoneOf(deps, audience.userId);
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
  await deps.dispatch('insights.show', { ...page, project, audience });
}
