import type { Deps } from '../deps.js';
import { slackErrorCode } from '../slack/errors.js';
import type { Audience } from '../slack/reply.js';
import { startRefusalAnswer } from './answers.js';
import { readFileContext } from './file-context.js';
import { type Instruction, readInstruction } from './instruction.js';
import { conversationUsage } from './messages.js';
import type { Turn } from './requests.js';
import { type StartJobDeps, startJob } from './start-job.js';
import { readThreadContext } from './thread-context.js';

/**
 * A message addressed to the bot outside a job's thread: the same words as `/agent` (`help`, `projects`,
 * `--project <id> <instruction>`), and a job started in the message's thread with the thread's earlier messages as
 * context. Refusals are told privately where the person wrote. `instruction`: the turn's, when its door read it
 * already (the pane, for the thread's title).
 */
export async function startFromTurn(
  deps: StartJobDeps & Pick<Deps, 'replies' | 'config'>,
  turn: Turn,
  audience: Audience,
  instruction: Instruction = readTurnInstruction(deps, turn),
): Promise<void> {
  if (instruction.kind === 'answer') return deps.replies.privately(audience, instruction.message);
  const context = turn.threadTs
    ? await readThreadContext(deps, { ...turn, threadTs: turn.threadTs, beforeTs: turn.ts }).catch((error) => {
        // The instruction still stands on its own; the log says why the context is missing.
        deps.log.warn('slack.thread_context_unavailable', {
          channel: turn.channel,
          slack_error: slackErrorCode(error),
        });
        return undefined;
      })
    : undefined;
  const files = await readFileContext(deps, turn.files ?? []);
  const result = await startJob(deps, {
    project: instruction.project,
    userId: turn.userId,
    channel: turn.channel,
    prompt: instruction.prompt,
    threadTs: turn.threadTs ?? turn.ts,
    context,
    files,
    // A mention inside a channel's discussion joins it; a new message's thread and a DM are the bot's own.
    thread: turn.threadTs && !turn.channel.startsWith('D') ? 'joined' : 'own',
  });
  if (!result.ok) {
    await deps.replies.privately(audience, startRefusalAnswer(result.refusal, instruction.prompt, deps.now()));
  }
}

/** What a turn asks for, read with the projects as `deps` routes its channel. */
export function readTurnInstruction(deps: Pick<Deps, 'projects'>, turn: Pick<Turn, 'text' | 'channel'>): Instruction {
  return readInstruction(turn.text, deps.projects, turn.channel, conversationUsage);
}
