import { type StartJobDeps, type StartJobInput, type StartJobResult, startRefusalAnswer } from '../agent/index.js';
import type { Deps } from '../deps.js';
import type { TaskRun } from '../task.js';
import { recordDraftJob, releaseDraft } from './draft-claim.js';
import { fixPrompt } from './evidence.js';
import type { DraftStart } from './requests.js';

// A submitted Draft a fix form's work: the job starts exactly as `/agent` starts one; its thread is recorded for the
// next click, or, when no job was started, the claim is let go and the person hears why with their instruction.

type DraftDeps = StartJobDeps & Pick<Deps, 'replies'>;

/** The agent's own start, and its finishing of a start whose run died (`agent/start-job.ts`): the composition's. */
export interface JobStarts {
  startJob(deps: StartJobDeps, input: StartJobInput): Promise<StartJobResult>;
  resumeEarlierStart(deps: StartJobDeps, attempt: string): Promise<StartJobResult | undefined>;
}

export const runDraftStart =
  (starts: JobStarts) =>
  async (deps: DraftDeps, start: DraftStart, run: TaskRun): Promise<void> => {
    const { project, audience, instruction, evidence } = start;
    const input = { project, userId: audience.userId, channel: audience.channel, attempt: run.id };
    await settle(deps, start, await starts.startJob(deps, { ...input, prompt: fixPrompt(instruction, evidence) }));
  };

/** A start not run again after a run that posted its root: finished as `/agent`'s is. */
export const resumeDraftStart =
  (starts: JobStarts) =>
  async (deps: DraftDeps, start: DraftStart, run: TaskRun): Promise<boolean> => {
    const result = await starts.resumeEarlierStart(deps, run.id);
    if (!result) return false;
    await settle(deps, start, result);
    return true;
  };

async function settle(deps: DraftDeps, start: DraftStart, result: StartJobResult): Promise<void> {
  const { project, audience, evidence, owner, instruction } = start;
  const subject = { project, channel: audience.channel, evidence };
  const unstored = (error: unknown) => deps.log.warn('store.unavailable', { op: 'insights.draft_claim', error });
  if (result.ok) return recordDraftJob(deps, subject, owner, result.record.threadTs).catch(unstored);
  await releaseDraft(deps, subject, owner).catch(unstored);
  await deps.replies.privately(audience, startRefusalAnswer(result.refusal, instruction, deps));
}
