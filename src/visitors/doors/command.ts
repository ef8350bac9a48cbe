import type { AllMiddlewareArgs, SlackCommandMiddlewareArgs } from '@slack/bolt';
import { accessOf } from '../../slack/access.js';
import { decodeSlackText } from '../../slack/decode.js';
import { visitorsTasks } from '../visitors-tasks.js';
import { answerAtDoor, type DoorDeps, inGroupDm, zoneOf } from './door-kit.js';
import { type Decoded, decodeDigest, decodeReport, digestWords } from './read-command.js';

export type CommandArgs = Pick<SlackCommandMiddlewareArgs & AllMiddlewareArgs, 'ack' | 'command' | 'context'>;

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
  const tz = await zoneOf(deps, audience.userId, digest !== undefined);
  const decoded: Decoded = digest
    ? {
        parsed: 'digest',
        ...decodeDigest(deps, digest, { audience, tz, groupDm: inGroupDm(command) }, accessOf(context).allowed),
      }
    : decodeReport(deps, text, { audience, tz });
  deps.log.info('visitors.command', { user: audience.userId, channel: audience.channel, parsed: decoded.parsed });
  if ('answer' in decoded) return answerAtDoor(deps, audience, decoded.answer);
  // One call per request type, so the compiler checks each task against its own data.
  if (decoded.task === 'digest') return deps.dispatch(visitorsTasks.digest, decoded.request);
  await deps.dispatch(visitorsTasks[decoded.task], decoded.request);
}
