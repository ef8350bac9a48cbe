import type { Deps } from '../deps.js';
import { type FailedResult, logFailure, mayHaveRun } from '../mintlify/failure.js';
import type { JobBinding, JobRef, ThreadKind } from '../store/jobs.js';
import { persist } from '../store/retry.js';
import { holdsSecret } from './secret-text.js';
import { renameSession } from './session/status.js';
import { refreshNow } from './tracking/root-message.js';

/** A person's message for a job's agent, its text decoded at the door. */
export interface FollowUpInput extends JobRef {
  channel: string;
  threadTs: string;
  /** `ts` of the person's message: an unsure round keeps it, to mark it ✅ once the agent is seen to have it. */
  ts: string;
  userId: string;
  /** What the agent is sent: the person's words, then any shared files' text. */
  text: string;
  /** What the thread's agent session is titled after: the person's words, or the names of the files shared alone. */
  title: string;
  /** The job's binding read back from its thread when the store lost it: the record is bound again from it. */
  binding?: JobBinding | undefined;
  /** Whose thread it is, kept when a vanished record is bound again. */
  thread?: ThreadKind | undefined;
}

export type FollowUpRefusal =
  | { code: 'quota'; project: string; resetInMs: number }
  | { code: 'store_unavailable' }
  /** The text holds what looks like a key or token (`secret-text.ts`): nothing was sent. */
  | { code: 'secret' }
  /** `tracked`: the agent may have the instruction (`mayHaveRun`) and its round is tracked, so a result may come. */
  | { code: 'service'; failed: FailedResult; tracked?: boolean };

/** `tracked: false`: the agent has the instruction, but its round could not be recorded, so no result will come. */
export type FollowUpResult = { ok: true; tracked: boolean } | { ok: false; refusal: FollowUpRefusal };

/** A follow-up whose answer was lost: the agent may have it all the same, so it was neither done nor refused. */
export function fateUnknown(result: FollowUpResult): boolean {
  return !result.ok && result.refusal.code === 'service' && mayHaveRun(result.refusal.failed.failure);
}

export type FollowUpDeps = Pick<
  Deps,
  | 'log'
  | 'store'
  | 'quota'
  | 'mintlify'
  | 'now'
  | 'tracker'
  | 'lanes'
  | 'slack'
  | 'projects'
  | 'jobWatchers'
  | 'workspace'
  | 'config'
>;

/**
 * Hands an instruction to a job as a follow-up: takes an hourly slot, sends it, then starts the job's next round
 * and tracks it. Once the service has the instruction its round must be tracked, so that write is retried through
 * a store outage. When it may have it (the answer was lost), the round is tracked as unsure: its root is left as it
 * is until the job shows it took the instruction up (`afterPoll`). Never answers the person itself: the result says
 * what happened.
 */
export async function followUp(deps: FollowUpDeps, input: FollowUpInput): Promise<FollowUpResult> {
  const { mintlify, quota } = deps;
  const { project, jobId, text } = input;
  const log = deps.log.child({ project, job_id: jobId });
  if (holdsSecret(text)) return { ok: false, refusal: { code: 'secret' } };

  try {
    const slot = await quota.take(project, 'follow_up');
    if (!slot.ok) return { ok: false, refusal: { code: 'quota', project, resetInMs: slot.resetInMs } };
  } catch (error) {
    log.error('store.unavailable', { op: 'agent.take_slot', error });
    return { ok: false, refusal: { code: 'store_unavailable' } };
  }

  const sent = await mintlify.sendFollowUp(project, jobId, text);
  if (!sent.ok) {
    logFailure(log, 'mintlify.follow_up', sent);
    if (mayHaveRun(sent.failure)) {
      const { tracked } = await nextRound(deps, input, log, true);
      return { ok: false, refusal: { code: 'service', failed: sent, tracked } };
    }
    // The slot bought nothing unless the service counted it (a 429).
    if (sent.failure.code !== 'rate_limited') {
      // the store guard counts the failure; an unrefunded use only narrows the hour.
      await quota.refund(project, 'follow_up').catch(() => {});
    }
    return { ok: false, refusal: { code: 'service', failed: sent } };
  }
  log.info('mintlify.follow_up', { outcome: 'ok', channel: input.channel });

  const { recorded, tracked } = await nextRound(deps, input, log, false);
  if (!recorded) return { ok: true, tracked: false };
  await refreshNow(deps, { project, jobId });
  // The agent works on the new instruction now: the thread's agent session says so.
  await renameSession(deps, { channel: input.channel, threadTs: input.threadTs }, input.title);
  return { ok: true, tracked };
}

/** Starts the job's next round and tracks it: whether the round was recorded, and tracked. */
async function nextRound(
  deps: FollowUpDeps,
  input: FollowUpInput,
  log: FollowUpDeps['log'],
  unsure: boolean,
): Promise<{ recorded: boolean; tracked: boolean }> {
  const { project, jobId, text } = input;
  const binding = input.binding ?? {
    project,
    jobId,
    channel: input.channel,
    threadTs: input.threadTs,
    statusTs: input.threadTs,
    userId: input.userId,
    prompt: text,
    createdAtMs: deps.now(),
    thread: input.thread,
  };
  let round: number;
  try {
    const started = () => deps.store.jobs.startRound(binding, deps.now(), unsure ? input.ts : undefined);
    round = (await persist(log, 'agent.start_round', started)).round;
  } catch (error) {
    log.error('store.unavailable', { op: 'agent.start_round', error });
    return { recorded: false, tracked: false };
  }
  let tracked = true;
  await deps.tracker.track({ project, jobId, round }).catch((error: unknown) => {
    log.error('queue.unavailable', { op: 'agent.track', error });
    tracked = false;
  });
  return { recorded: true, tracked };
}
