import { Cron } from 'croner';
import { z } from 'zod';
import { redact } from '../log.js';
import {
  type AddOptions,
  type Backoff,
  type JobMeta,
  type LaneDefinition,
  type LaneSchedule,
  PermanentJobError,
  type Processor,
  scheduleSchema,
} from './engine.js';

/** The rules both implementations share, so they cannot drift apart. */

/** How many failed jobs a lane keeps for operators, and for how long; older ones are deleted (their ids freed). */
export const FAILED_KEPT = { count: 1_000, ageMs: 7 * 24 * 3_600_000 } as const;
const SUMMARY_CHARS = 200;

/** The wait before try `attempt + 1`, after try `attempt` failed; undefined when no try is left (or may help). */
export function retryDelayMs(lane: LaneDefinition, attempt: number, permanent: boolean): number | undefined {
  if (permanent || attempt >= lane.attempts) return undefined;
  return backoffMs(lane.backoff, attempt);
}

/** Whether a try's failure is its step's last: the lane has no try left for it, or trying again cannot help. */
export function isLastTry(lane: Pick<LaneDefinition, 'attempts'>, meta: Pick<JobMeta, 'attempt'>, error: unknown) {
  return error instanceof PermanentJobError || meta.attempt >= lane.attempts;
}

/** BullMQ's built-in strategies, computed the same way. */
export function backoffMs(backoff: Backoff, attempt: number): number {
  return backoff.type === 'fixed' ? backoff.delayMs : Math.round(2 ** (attempt - 1) * backoff.delayMs);
}

/** Data validated on the way in (a schema may also transform it: what it returns is what is stored). */
export function parseData<S extends z.ZodType>(lane: LaneDefinition<S>, data: unknown): z.infer<S> {
  return lane.data.parse(data);
}

/** Data validated on the way in, as the JSON text that crosses the process boundary. */
export function encodeData(lane: LaneDefinition, data: unknown): string {
  return JSON.stringify(parseData(lane, data));
}

/** A job's or a scheduler's id. */
export const jobIdSchema = z
  .string()
  .min(1)
  .max(200)
  // BullMQ reserves plain numbers and `:` (its own ids); say `poll/proj_a/job-1/3`.
  .regex(/^[^:\s]+$/, 'a job id has no `:` or spaces (use `/` between its parts)')
  .refine((id) => !/^\d+$/.test(id), 'a job id is not a plain number');

const addOptionsSchema = z.object({
  id: jobIdSchema.optional(),
  delayMs: z.number().int().nonnegative().optional(),
});

export function checkAddOptions(options: AddOptions): AddOptions {
  return addOptionsSchema.parse(options);
}

/** Rejects an unknown time zone or a pattern that is not cron, before any store is touched. */
export function checkSchedule(schedule: LaneSchedule): LaneSchedule {
  const parsed = scheduleSchema.parse(schedule);
  if ('cron' in parsed) {
    new Intl.DateTimeFormat('en', { timeZone: parsed.tz }); // throws RangeError on an unknown zone
    new Cron(parsed.cron, { timezone: parsed.tz, paused: true }); // throws on a pattern that is not cron
  }
  return parsed;
}

/** Runs the processor on data parsed again at this end; data that is not the lane's fails at once. */
export async function runProcessor<S extends z.ZodType>(
  lane: LaneDefinition<S>,
  processor: Processor<z.infer<S>>,
  data: unknown,
  meta: JobMeta,
): Promise<unknown> {
  const parsed = lane.data.safeParse(data);
  if (!parsed.success) {
    throw new PermanentJobError(`job data is not lane ${lane.name}'s: ${z.prettifyError(parsed.error)}`);
  }
  return processor(parsed.data, meta);
}

/** Settles like `work`, or rejects with HANDED_BACK as soon as `signal` aborts: the job goes back to its queue. */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  work.catch(() => {}); // once handed back, a later failure of the abandoned run is nobody's to handle
  if (signal.aborted) return Promise.reject(HANDED_BACK);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(HANDED_BACK);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
export const HANDED_BACK = Symbol('handed back');

/** A job's data for people: JSON, shortened, tokens redacted. */
export function summarise(json: string): string {
  const text = json.length > SUMMARY_CHARS ? `${json.slice(0, SUMMARY_CHARS)}…` : json;
  return redact(text);
}

/** Several definitions of one lane name in one engine must agree, or jobs would run with the wrong settings. */
export function sameLane(a: LaneDefinition, b: LaneDefinition): boolean {
  return (
    a.data === b.data &&
    a.concurrency === b.concurrency &&
    a.attempts === b.attempts &&
    a.backoff.type === b.backoff.type &&
    a.backoff.delayMs === b.backoff.delayMs
  );
}

export function errorText(error: unknown): string {
  return redact(error instanceof Error ? error.message : String(error));
}
