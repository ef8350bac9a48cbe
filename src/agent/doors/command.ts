import type { AllMiddlewareArgs, SlackCommandMiddlewareArgs } from '@slack/bolt';
import type { Deps } from '../../deps.js';
import { accessOf } from '../../slack/access.js';
import { decodeSlackText } from '../../slack/decode.js';
import { decodeWithNames } from '../../slack/user-names.js';
import { agentTasks } from '../agent-tasks.js';
import { readInstruction } from '../instruction.js';
import { errors, usage } from '../messages.js';

type CommandArgs = SlackCommandMiddlewareArgs & AllMiddlewareArgs;

/** Wire text of a command; a malformed form body can repeat `text`, which then arrives as an array. */
const textOf = (text: unknown) => (typeof text === 'string' ? text : '');
/** `/agent stop`: the person's latest job still running here stops (agent/session/stop.ts). */
const STOP = /^\s*stop\s*$/i;
const isId = (value: unknown) => typeof value === 'string' && value !== '';

/**
 * `/agent [--project <id>] <instruction>` (or `/agent stop`): answers usage, `projects`, an unknown project and a refusal in the ack
 * itself (privately, the instruction echoed); otherwise acks at once and hands the decoded instruction on.
 */
export async function agentCommand(
  deps: Pick<Deps, 'slack' | 'store' | 'log' | 'projects' | 'dispatch' | 'config'>,
  { command, ack, context }: CommandArgs,
): Promise<void> {
  const wire = textOf(command.text);
  // Without both there is nobody to credit and nowhere to post: refuse before any slot, post or job.
  if (!isId(command.user_id) || !isId(command.channel_id)) {
    const reason = 'I could not tell who ran this command or where, so I did nothing.';
    return ack({ response_type: 'ephemeral', ...usage(deps.config.followUps, reason) });
  }
  if (!accessOf(context).allowed) {
    deps.log.info('agent.refused', { user: command.user_id, channel: command.channel_id, door: 'command' });
    return ack({ response_type: 'ephemeral', ...errors.notAllowed(decodeSlackText(wire)) });
  }
  if (STOP.test(decodeSlackText(wire))) {
    await ack();
    const where = { userId: command.user_id, channel: command.channel_id, responseUrl: command.response_url };
    return deps.dispatch(agentTasks.stop, { ...where, allowed: true });
  }
  // Read once, on the wire text: usage and refusals go in the ack (no Slack call before it); the instruction itself
  // is decoded with names (users.info) after it.
  const instruction = readInstruction(
    wire,
    deps.projects,
    command.channel_id,
    (here) => usage(deps.config.followUps, undefined, here),
    decodeSlackText,
  );
  if (instruction.kind === 'answer') return ack({ response_type: 'ephemeral', ...instruction.message });
  await ack();
  const prompt = await decodeWithNames(deps, instruction.prompt);
  const audience = { userId: command.user_id, channel: command.channel_id, responseUrl: command.response_url };
  await deps.dispatch(agentTasks.start, { project: instruction.project, prompt, audience });
}
