import { z } from 'zod';
import type { Deps } from '../deps.js';
import { headOf } from '../slack/mrkdwn.js';
import { findWitnessed } from '../slack/witness.js';
import { type JobBinding, THREAD_KINDS, threadKindOf } from '../store/jobs.js';

/** `metadata.event_type` of a job's status message once the job exists (the root of an `/agent` thread). */
export const JOB_EVENT_TYPE = 'mintlify_agent_job';
/** The root shows the prompt's start only; the metadata keeps a little more, and stays small. */
const PROMPT_KEPT_CHARS = 1_000;

const JobPayloadSchema = z.object({
  project: z.string().min(1),
  job_id: z.string().min(1),
  thread_ts: z.string().min(1),
  user_id: z.string(),
  created_at_ms: z.number(),
  prompt: z.string(),
  context_note: z.string().optional(),
  /** Whose thread it is (`steering.ts`); absent from messages posted before it was kept. */
  thread: z.enum(THREAD_KINDS).optional(),
  /** The message is a plan card, so a record read back from it keeps writing one. */
  root: z.literal('card').optional(),
});

/**
 * What a job's status message carries in Slack's message metadata: enough to bind the job to its thread again
 * when the store lost its record (Slack keeps it with the message).
 */
export function jobMetadata(binding: JobBinding) {
  const payload: z.infer<typeof JobPayloadSchema> = {
    project: binding.project,
    job_id: binding.jobId,
    thread_ts: binding.threadTs,
    user_id: binding.userId,
    created_at_ms: binding.createdAtMs,
    prompt: headOf(binding.prompt, PROMPT_KEPT_CHARS),
    thread: threadKindOf(binding),
    ...(binding.contextNote && { context_note: binding.contextNote }),
    ...(binding.root && { root: binding.root }),
  };
  return { event_type: JOB_EVENT_TYPE, event_payload: payload };
}

export type ReadoptDeps = Pick<Deps, 'slack' | 'log' | 'storeLoss'>;

/**
 * The job of a thread the store does not know, read back from its status message's metadata, when the store lost
 * its data after the thread started (otherwise the thread is simply not a job's, and Slack is not asked).
 */
export async function readoptThread(
  deps: ReadoptDeps,
  projects: readonly string[],
  where: { channel: string; threadTs: string },
): Promise<JobBinding | undefined> {
  const startedAtMs = Number(where.threadTs) * 1000;
  if (!(await deps.storeLoss?.lostBefore(startedAtMs))) return undefined;
  const found = await findWitnessed(deps.slack, where, JOB_EVENT_TYPE, (payload) => {
    const job = JobPayloadSchema.safeParse(payload);
    return job.success && job.data.thread_ts === where.threadTs && projects.includes(job.data.project);
  });
  if (!found) return undefined;
  const binding = bindingFromMetadata(found.payload, where.channel, found.ts);
  if (binding)
    deps.log.warn('store.job_readopted', { project: binding.project, job_id: binding.jobId, channel: where.channel });
  return binding;
}

/** The job a status message's metadata names (`ts`: the message's own), `undefined` when it names none. */
export function bindingFromMetadata(payload: unknown, channel: string, ts: string): JobBinding | undefined {
  const parsed = JobPayloadSchema.safeParse(payload);
  if (!parsed.success) return undefined;
  const job = parsed.data;
  return {
    project: job.project,
    jobId: job.job_id,
    channel,
    threadTs: job.thread_ts,
    statusTs: ts,
    userId: job.user_id,
    prompt: job.prompt,
    createdAtMs: job.created_at_ms,
    ...(job.context_note && { contextNote: job.context_note }),
    ...(job.thread && { thread: job.thread }),
    ...(job.root && { root: job.root }),
  };
}
