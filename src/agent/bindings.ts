import { z } from 'zod';
import { JobStatusSchema } from '../mintlify/schemas.js';
import type { Store } from '../store/store.js';
import { OUTCOME_KINDS } from './outcome.js';

/** What the bot remembers about a job and the Slack thread that belongs to it. */
export const JobRecordSchema = z.object({
  jobId: z.string(),
  channel: z.string(),
  /** `ts` of the root message; the thread's id. */
  threadTs: z.string(),
  userId: z.string(),
  prompt: z.string(),
  /** Last status the service reported. */
  status: JobStatusSchema,
  /** Set once the outcome of the current round has been posted. */
  ended: z.enum(OUTCOME_KINDS).nullish(),
  repository: z.string().nullish(),
  ref: z.string().nullish(),
  model: z.string().nullish(),
  prLink: z.string().nullish(),
  /** Bumped by each accepted follow-up; an outcome is posted once per round. */
  round: z.number().int().min(0),
  createdAtMs: z.number(),
  roundStartedAtMs: z.number(),
});
export type JobRecord = z.infer<typeof JobRecordSchema>;

/** Ended jobs are kept a while so late thread replies still find their job. */
export const RECORD_TTL_MS = 30 * 24 * 60 * 60 * 1000;
export const ACTIVE_JOBS = 'active-jobs';

const jobKey = (jobId: string) => `job:${jobId}`;
const threadKey = (channel: string, threadTs: string) => `thread:${channel}:${threadTs}`;

/** Job ↔ thread bindings in both directions, plus the index of jobs still being tracked. */
export interface Bindings {
  bind(record: JobRecord): Promise<void>;
  save(record: JobRecord): Promise<void>;
  getJob(jobId: string): Promise<JobRecord | undefined>;
  jobForThread(channel: string, threadTs: string): Promise<string | undefined>;
  activeJobIds(): Promise<string[]>;
  stopTracking(jobId: string): Promise<void>;
}

export function createBindings(store: Store): Bindings {
  const { kv, claims } = store;
  const save = (record: JobRecord) => kv.set(jobKey(record.jobId), record, RECORD_TTL_MS).then(() => undefined);
  return {
    async bind(record) {
      await save(record);
      await kv.set(threadKey(record.channel, record.threadTs), record.jobId, RECORD_TTL_MS);
      await claims.addMember(ACTIVE_JOBS, record.jobId);
    },
    save,
    async getJob(jobId) {
      // A malformed record reads as a miss rather than crashing whoever asked.
      const parsed = JobRecordSchema.safeParse(await kv.get(jobKey(jobId)));
      return parsed.success ? parsed.data : undefined;
    },
    async jobForThread(channel, threadTs) {
      const jobId: unknown = await kv.get(threadKey(channel, threadTs));
      return typeof jobId === 'string' ? jobId : undefined;
    },
    activeJobIds: () => claims.members(ACTIVE_JOBS),
    async stopTracking(jobId) {
      await claims.removeMember(ACTIVE_JOBS, jobId);
    },
  };
}
