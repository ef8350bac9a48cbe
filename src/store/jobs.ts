import { z } from 'zod';
import type { JobRef } from './keys.js';

/**
 * How a round ended: the outcome posted in the thread, `untracked` when it could not be posted for good, `stopped`
 * when tracking it failed for good (a poll or an outcome post out of tries), `halted` when a person stopped it
 * (Slack's Stop, `/agent stop`): a reply in the thread resumes it.
 */
export const ENDED_KINDS = [
  'pull_request',
  'no_changes',
  'failed',
  'archived',
  'gone',
  'expired',
  'disconnected',
  'untracked',
  'stopped',
  'halted',
] as const;
export type EndedKind = (typeof ENDED_KINDS)[number];
/** The ends without an outcome in the thread. */
export type StoppedKind = 'untracked' | 'stopped' | 'halted';

/** Ended jobs are kept a while so late thread replies still find their job. */
export const RECORD_TTL_MS = 30 * 24 * 60 * 60 * 1000;

/** How long a thread counts as starting at most: longer than the service's create call can take. */
export const STARTING_TTL_MS = 60_000;

/** A job is named by its project and its id: two projects may use the same id. */
export type { JobRef } from './keys.js';

/** The bot's own thread (the `/agent` root, a DM, the shortcut's thread) or a discussion the job joined (a mention). */
export const THREAD_KINDS = ['own', 'joined'] as const;
export type ThreadKind = (typeof THREAD_KINDS)[number];

/** Where a job's thread is and who started it; written once, when the job is bound to its thread. */
export const JobBindingSchema = z.object({
  project: z.string().min(1),
  jobId: z.string().min(1),
  channel: z.string().min(1),
  /** `ts` of the message whose thread belongs to the job. */
  threadTs: z.string().min(1),
  /** `ts` of the bot's status message: the thread's root for `/agent`, a reply in the thread for a mention. */
  statusTs: z.string().min(1),
  userId: z.string(),
  prompt: z.string(),
  createdAtMs: z.coerce.number(),
  /** Said in the status line when the prompt carries thread context (how much, and the cap); `''` when none. */
  contextNote: z.string().optional(),
  /** Whose thread it is, which decides who steers the job; unset in records written before it was kept. */
  thread: z.preprocess((v) => v || undefined, z.enum(THREAD_KINDS).optional()),
  /** The status message is a plan card (`agent/plan-card.ts`); unset: the status line. */
  root: z.preprocess((v) => v || undefined, z.enum(['card']).optional()),
});
export type JobBinding = z.infer<typeof JobBindingSchema>;

/** Whose thread a job's is; a record without the field is the bot's own when its status message is the root. */
export function threadKindOf(record: Pick<JobBinding, 'thread' | 'threadTs' | 'statusTs'>): ThreadKind {
  return record.thread ?? (record.threadTs === record.statusTs ? 'own' : 'joined');
}

const optionalText = z
  .string()
  .nullish()
  .transform((v) => v || null);

/**
 * Everything the bot knows about a job. Stored flat (a Redis hash) so the transitions below can run as
 * scripts on Redis without parsing JSON; every value comes back as a string and is coerced here.
 */
export const JobRecordSchema = JobBindingSchema.extend({
  /** Last status the service reported, as it came (one the bot does not know included). */
  status: z.string().min(1),
  repository: optionalText,
  ref: optionalText,
  model: optionalText,
  /** The pull request last posted in the thread, so a later round can say it "updated" it. */
  prLink: optionalText,
  /** Bumped by each accepted follow-up; an outcome is posted once per round. */
  round: z.coerce.number().int().min(0),
  roundStartedAtMs: z.coerce.number(),
  /**
   * Set when a follow-up whose fate is unknown (its answer was lost) started this round: the end the thread had been
   * told before it, which the job is shown as (`shownEnd`) until it is seen running again (`observe` clears it). A job
   * still showing that end past the take-up window never got the follow-up.
   */
  unsure: z.preprocess((v) => v || undefined, z.enum(ENDED_KINDS).optional()),
  /** `ts` of the reply that started an unsure round (marked ❔), kept through the round; unset in older records. */
  unsureTs: z.preprocess((v) => v || undefined, z.string().optional()),
  /** Who stopped the job (`halted`: Slack's Stop, `/agent stop`), for its root message. */
  stoppedBy: z.preprocess((v) => v || undefined, z.string().optional()),
  /** Set when the current round's outcome was posted (or could not be, for good). */
  ended: z.union([z.enum(ENDED_KINDS), z.literal('')]).transform((v) => v || null),
  /** A round whose outcome post was started and not confirmed: Slack may hold it, so look before posting. */
  attempt: z
    .union([z.literal(''), z.coerce.number().int()])
    .nullish()
    .transform((v) => (typeof v === 'number' ? v : null)),
  /**
   * When the first unconfirmed attempt of `attempt`'s round began (ms): Slack stored nothing of it before, so the
   * thread is read from shortly before then. Unset in older records: the whole thread is read.
   */
  attemptAtMs: z.preprocess((v) => v || undefined, z.coerce.number().optional()),
  /** Bumped by every change the root message shows, so concurrent updaters can converge on the latest. */
  rev: z.coerce.number().int().min(0),
});
export type JobRecord = z.infer<typeof JobRecordSchema>;

/**
 * The end a job is shown as, everywhere (root, App Home, `my jobs`, its session, Stop): its round's, or while an
 * unsure round waits for the agent to take its follow-up up, the end the thread was told before it.
 */
export function shownEnd(record: Pick<JobRecord, 'ended' | 'unsure'>): EndedKind | null {
  return record.ended ?? record.unsure ?? null;
}

/** An unsure round still waiting to see whether the agent took its follow-up up. */
export const awaitingTakeUp = (record: Pick<JobRecord, 'ended' | 'unsure'>) =>
  record.ended === null && record.unsure !== undefined;

/** What the service said about a job while it runs. */
export interface JobObservation {
  status: JobRecord['status'];
  repository?: string | null | undefined;
  ref?: string | null | undefined;
  model?: string | null | undefined;
}

/** A transition that compares the round first: `ok: false` when the job moved on (or is gone) meanwhile. */
export type Transition = { ok: true; record: JobRecord } | { ok: false; record: JobRecord | undefined };

/**
 * Whether an outcome post of a round may go ahead, and whether an earlier attempt may already have posted it (and
 * when the first such attempt began, unless its record is older than that time being kept).
 */
export type PostPermit =
  | { ok: true; earlierAttempt: false }
  | { ok: true; earlierAttempt: true; atMs: number | undefined }
  | { ok: false; reason: 'ended' | 'superseded' | 'missing' };

export class CorruptJobError extends Error {
  override name = 'CorruptJobError';
  readonly code = 'corrupt_record';
  constructor(
    readonly ref: JobRef,
    readonly problems: string[],
  ) {
    super(`job record ${ref.project}/${ref.jobId} does not match its schema: ${problems.join('; ')}`);
  }
}

/**
 * One home for a job's state. Every change is a named transition that is atomic on its store (a script on
 * Redis, one synchronous step in memory) and compares the round, so a follow-up and an outcome racing on the
 * same job can never overwrite each other.
 */
export interface JobStore {
  /** Binds a new job to its thread and starts tracking it. */
  create(binding: JobBinding, observation: JobObservation, atMs: number): Promise<JobRecord>;
  /**
   * Binds a job whose record vanished again, as `create`, unless a record appeared meanwhile (a reply in its thread
   * bound it first and may have started a round): that one is kept and `undefined` returned.
   */
  rebind(binding: JobBinding, observation: JobObservation, atMs: number): Promise<JobRecord | undefined>;
  /** The record, `undefined` when there is none; throws `CorruptJobError` when one exists but is unreadable. */
  get(ref: JobRef): Promise<JobRecord | undefined>;
  /** The job whose thread this is, among `projects`. */
  forThread(projects: readonly string[], channel: string, threadTs: string): Promise<JobRef | undefined>;
  /** Ids of the project's jobs whose current round has not ended. */
  active(project: string): Promise<string[]>;
  /**
   * A follow-up was accepted: the next round starts (round + 1, tracked again). Concurrent calls each get
   * their own round. A record that vanished is bound again from `binding`. `unsureTs`: the follow-up's fate is unknown
   * (the `ts` of its reply), so the round keeps the end the thread was told (`unsure` in the record, with `unsureTs`):
   * the last round's, or while an unsure round is still open, the one it kept.
   */
  startRound(binding: JobBinding, atMs: number, unsureTs?: string): Promise<JobRecord>;
  /**
   * Round `round`'s outcome is in the thread: the round ends, unless it already did or a newer one started.
   * Its PR link is recorded either way, since the thread shows it.
   */
  endRound(
    ref: JobRef,
    round: number,
    ended: Exclude<EndedKind, StoppedKind>,
    prLink?: string | null,
  ): Promise<Transition>;
  /**
   * Round `round` ends without its outcome in the thread: Slack refused it for good (`untracked`, the default), or
   * tracking it failed for good (`stopped`), or a person stopped it (`halted`, by `stoppedBy`). `ok` for one caller
   * only, so whoever gets it tells the person.
   */
  stopTracking(ref: JobRef, round: number, why?: StoppedKind, stoppedBy?: string): Promise<Transition>;
  /**
   * Marks round `round`'s outcome post as started at `atMs` (an earlier unconfirmed attempt keeps its own time); says
   * whether an earlier attempt may have posted it already.
   */
  beginPost(ref: JobRef, round: number, atMs: number): Promise<PostPermit>;
  /** Slack refused round `round`'s post outright (a 429: nothing was posted): the next attempt need not look. */
  abandonPost(ref: JobRef, round: number): Promise<void>;
  /**
   * Records what the service reports while the job runs, and that an unsure round's follow-up was taken up (`unsure`
   * cleared: the job runs again); bumps `rev` (and says so) only when something changed.
   */
  observe(ref: JobRef, observation: JobObservation): Promise<boolean>;
  /** Drops a job id from the project's active set without touching its record (nothing left to track). */
  untrack(ref: JobRef): Promise<void>;
  /** The jobs `userId` started, newest first, at most `limit` (App Home); ended records may have expired since. */
  forUser(userId: string, limit: number): Promise<JobRef[]>;
  /**
   * A job of `project` is being created in this thread, which will be `thread`'s kind: until `clearStarting` (or
   * `STARTING_TTL_MS` at most), before the job is bound, a reply in it is answered "still starting".
   */
  markStarting(project: string, channel: string, threadTs: string, thread: ThreadKind): Promise<void>;
  /** Whose thread it is, when a job of one of `projects` is being started in it right now; otherwise `undefined`. */
  startingIn(projects: readonly string[], channel: string, threadTs: string): Promise<ThreadKind | undefined>;
  /** The job of `project` in this thread is bound, or will not be: the thread no longer counts as starting. */
  clearStarting(project: string, channel: string, threadTs: string): Promise<void>;
}

/** Each person's index keeps their newest jobs only. */
export const USER_INDEX_MAX = 50;

/** The flat form a record is stored in: strings, `''` for nothing. */
export function toFields(record: Partial<JobRecord>): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [key, value] of Object.entries(record))
    fields[key] = value === null || value === undefined ? '' : String(value);
  return fields;
}

/** Reads a stored record back; `undefined` for an empty hash (no record). */
export function fromFields(ref: JobRef, fields: Record<string, string> | undefined): JobRecord | undefined {
  if (!fields || Object.keys(fields).length === 0) return undefined;
  const parsed = JobRecordSchema.safeParse(fields);
  if (!parsed.success) {
    throw new CorruptJobError(
      ref,
      parsed.error.issues.map((i) => `${i.path.join('.') || 'record'}: ${i.message}`),
    );
  }
  return parsed.data;
}

/** The fields a new record starts with. */
export function initialRecord(binding: JobBinding, observation: JobObservation, atMs: number): JobRecord {
  return {
    ...binding,
    status: observation.status,
    repository: observation.repository ?? null,
    ref: observation.ref ?? null,
    model: observation.model ?? null,
    prLink: null,
    round: 0,
    roundStartedAtMs: atMs,
    ended: null,
    attempt: null,
    rev: 0,
  };
}
