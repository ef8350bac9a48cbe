import type { Deps } from '../deps.js';
import { slackErrorCode } from '../slack/errors.js';
import type { Audience } from '../slack/reply.js';
import type { TaskRun } from '../task.js';
import { startRefusalAnswer } from './answers.js';
import type { CommandStart, ShortcutSubmission, Turn } from './requests.js';
import { shortcutPrompt } from './shortcut-modal.js';
import { turnAttempt } from './start-attempt.js';
import { resumeEarlierStart, type StartJobDeps, startJob } from './start-job.js';
import { readMessageContext } from './thread-context.js';

// The agent's work after a door's ack, one function per kind of request. Each takes plain data (what the door
// decoded) and answers the person itself, so it can run wherever the work runs (see `agent-work.ts`).

type TaskDeps = StartJobDeps & Pick<Deps, 'replies'>;

export async function runCommandStart(deps: TaskDeps, request: CommandStart, run: TaskRun): Promise<void> {
  const { audience, prompt, project } = request;
  const { userId, channel } = audience;
  const result = await startJob(deps, { project, userId, channel, prompt, attempt: run.id });
  if (!result.ok) await deps.replies.privately(audience, startRefusalAnswer(result.refusal, prompt, deps));
}

/** A submitted "Ask the Mintlify agent" form: the job starts in the message's thread. */
export async function runShortcutStart(deps: TaskDeps, submission: ShortcutSubmission, run: TaskRun): Promise<void> {
  const { origin, instruction, userId, project } = submission;
  const prompt = shortcutPrompt(instruction, origin);
  const thread = origin.inDiscussion ? ('joined' as const) : ('own' as const);
  const context = origin.messageTs
    ? await readMessageContext(deps, { ...origin, messageTs: origin.messageTs }, instruction).catch((error) => {
        // The instruction still stands on its own; the log says why the message is missing.
        deps.log.warn('slack.thread_context_unavailable', {
          channel: origin.channel,
          slack_error: slackErrorCode(error),
        });
        return undefined;
      })
    : undefined;
  const input = { project, userId, channel: origin.channel, prompt, threadTs: origin.threadTs, thread, context };
  const result = await startJob(deps, { ...input, attempt: run.id });
  if (!result.ok)
    await deps.replies.privately(shortcutAudience(submission), startRefusalAnswer(result.refusal, prompt, deps));
}

/** `/agent`'s start that is not run again: what its run left is finished (`finishEarlierStart`). */
export const resumeCommandStart = (deps: TaskDeps, { audience, prompt }: CommandStart, run: TaskRun) =>
  finishEarlierStart(deps, run.id, audience, prompt);

/** The form's start that is not run again, as `resumeCommandStart`. */
export const resumeShortcutStart = (deps: TaskDeps, submission: ShortcutSubmission, run: TaskRun) =>
  finishEarlierStart(
    deps,
    run.id,
    shortcutAudience(submission),
    shortcutPrompt(submission.instruction, submission.origin),
  );

/** A mention's, a DM's or a pane message's start that is not run again: the message itself names it. */
export const resumeTurnStart = (deps: TaskDeps, turn: Turn) =>
  finishEarlierStart(
    deps,
    turnAttempt(turn),
    { userId: turn.userId, channel: turn.channel, threadTs: turn.threadTs },
    turn.text,
  );

/** Where the form's submitter hears about its start: privately, in the message's thread. */
const shortcutAudience = ({ userId, origin }: ShortcutSubmission): Audience => ({
  userId,
  channel: origin.channel,
  threadTs: origin.threadTs,
});

/**
 * A start that is not run again (see `RunnableTask.resume`) after a run that posted its root: that root is finished
 * as a run again would, and the person hears what became of it (`echo`: their text). False when no run posted one.
 */
async function finishEarlierStart(deps: TaskDeps, id: string, audience: Audience, echo: string) {
  const result = await resumeEarlierStart(deps, id);
  if (!result) return false;
  if (!result.ok) await deps.replies.privately(audience, startRefusalAnswer(result.refusal, echo, deps));
  return true;
}
