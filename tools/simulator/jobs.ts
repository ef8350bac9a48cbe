import { randomUUID } from 'node:crypto';
import type { JobStatus } from './contract.js';

export type EndStatus = Exclude<JobStatus, 'active'>;

/** A job as the simulator keeps it: every documented field present (the `job` switch takes some away). */
export interface SimulatedJob {
  id: string;
  status: JobStatus;
  source: { repository: string; ref: string | null };
  model: string;
  prLink: string | null;
  createdAt: string;
  archivedAt: string | null;
}
export interface JobOutcome {
  status: EndStatus;
  prLink?: string | null;
}

/** How a run ends when it is not left to the prompt's words. */
export type ScriptedEnd = 'pull_request' | 'no_changes' | 'failed' | 'archived';

export interface JobStoreOptions {
  now: () => number;
  jobDurationMs: number | ((prompt: string) => number);
  /** Asked at the start of every run; undefined leaves the ending to the prompt's words. */
  scriptedEnd?: (() => ScriptedEnd | undefined) | undefined;
  createLimitPerHour: number;
  followUpLimitPerHour: number;
  /**
   * How long a follow-up of an ended job goes unseen: the service takes it up asynchronously ("poll the get job
   * endpoint to track progress"), so until then the job shows its previous end.
   */
  followUpTakeUpMs: number;
}

export type CreateResult = { kind: 'ok'; job: SimulatedJob } | { kind: 'rate-limited'; retryAfterSec: number };
export type FollowUpResult = CreateResult | { kind: 'not-found' } | { kind: 'archived' };

const REPOSITORY = 'https://github.com/acme/docs';
const HOUR_MS = 3_600_000;

// State is computed lazily from the clock: a job is active until `runEndsAt`, then shows `outcome`.
interface JobRecord {
  id: string;
  projectId: string;
  createdAt: number;
  /** The job's pull request, if a run opened one: a later run updates it (the answer shows it only once ended). */
  prLink: string | null;
  runEndsAt: number;
  outcome: { status: EndStatus; prLink: string | null };
  /** A follow-up not taken up yet: what the job shows until `until`. */
  previous?: { view: SimulatedJob; until: number } | undefined;
}

export class SimulatedJobs {
  readonly #options: JobStoreOptions;
  readonly #jobs = new Map<string, JobRecord>();
  readonly #createLimits: FixedWindowLimiter;
  readonly #followUpLimits: FixedWindowLimiter;
  #nextPr = 1;

  constructor(options: JobStoreOptions) {
    this.#options = options;
    this.#createLimits = new FixedWindowLimiter(options.createLimitPerHour, options.now);
    this.#followUpLimits = new FixedWindowLimiter(options.followUpLimitPerHour, options.now);
  }

  create(projectId: string, prompt: string): CreateResult {
    const retryAfterSec = this.#createLimits.take(projectId);
    if (retryAfterSec !== undefined) return { kind: 'rate-limited', retryAfterSec };
    const now = this.#options.now();
    const record: JobRecord = {
      id: randomUUID(),
      projectId,
      createdAt: now,
      prLink: null,
      runEndsAt: now,
      outcome: { status: 'completed', prLink: null },
    };
    this.#startRun(record, prompt);
    this.#jobs.set(record.id, record);
    return { kind: 'ok', job: this.#view(record) };
  }

  get(projectId: string, id: string): SimulatedJob | undefined {
    const record = this.#jobs.get(id);
    return record && record.projectId === projectId ? this.#view(record) : undefined;
  }

  followUp(projectId: string, id: string, prompt: string): FollowUpResult {
    const record = this.#jobs.get(id);
    if (!record || record.projectId !== projectId) return { kind: 'not-found' };
    const current = this.#view(record);
    if (current.status === 'archived') return { kind: 'archived' };
    const retryAfterSec = this.#followUpLimits.take(projectId);
    if (retryAfterSec !== undefined) return { kind: 'rate-limited', retryAfterSec };
    // The job's pull request outlives a run that changed nothing: a later run updates it.
    if (current.status !== 'active') record.prLink = record.outcome.prLink ?? record.prLink;
    this.#startRun(record, prompt);
    const until = this.#options.now() + this.#options.followUpTakeUpMs;
    if (current.status !== 'active') record.previous = { view: current, until };
    return { kind: 'ok', job: this.#view(record) };
  }

  /** Any project's job, for tests. */
  find(id: string): SimulatedJob | undefined {
    const record = this.#jobs.get(id);
    return record && this.#view(record);
  }

  /** Ends the current run now, by its scripted outcome or the given one. */
  end(id: string, outcome?: JobOutcome): SimulatedJob {
    const record = this.#jobs.get(id);
    if (!record) throw new Error(`Unknown job ${id}`);
    record.runEndsAt = Math.min(record.runEndsAt, this.#options.now());
    record.previous = undefined;
    if (outcome) {
      const prLink =
        outcome.prLink !== undefined
          ? outcome.prLink
          : outcome.status === 'completed'
            ? (record.outcome.prLink ?? this.#newPr())
            : record.prLink;
      record.outcome = { status: outcome.status, prLink };
    }
    return this.#view(record);
  }

  delete(id: string): boolean {
    return this.#jobs.delete(id);
  }

  #startRun(record: JobRecord, prompt: string): void {
    const now = this.#options.now();
    const duration = this.#options.jobDurationMs;
    record.runEndsAt = now + Math.max(0, typeof duration === 'function' ? duration(prompt) : duration);
    record.outcome = this.#script(prompt, record.prLink);
  }

  #script(prompt: string, prLink: string | null): JobRecord['outcome'] {
    const text = prompt.toLowerCase();
    const forced = this.#options.scriptedEnd?.();
    if (forced === 'failed' || (!forced && text.includes('fail'))) return { status: 'failed', prLink };
    // "`null` … if no files were changed" (AgentJob.prLink), after a follow-up too.
    if (forced === 'no_changes' || (!forced && text.includes('no changes')))
      return { status: 'completed', prLink: null };
    if (forced === 'archived' || (!forced && text.includes('archive'))) return { status: 'archived', prLink };
    // A follow-up on a job that already has a PR updates that PR.
    return { status: 'completed', prLink: prLink ?? this.#newPr() };
  }

  #newPr(): string {
    return `${REPOSITORY}/pull/${this.#nextPr++}`;
  }

  #view(record: JobRecord): SimulatedJob {
    if (record.previous && this.#options.now() < record.previous.until) return record.previous.view;
    const active = this.#options.now() < record.runEndsAt;
    const status = active ? 'active' : record.outcome.status;
    return {
      id: record.id,
      status,
      source: { repository: REPOSITORY, ref: `mintlify/agent-${record.id.slice(0, 8)}` },
      model: 'claude-sonnet-4',
      // "`null` while the job is still `active`" (AgentJob.prLink), a follow-up's run included.
      prLink: active ? null : record.outcome.prLink,
      createdAt: new Date(record.createdAt).toISOString(),
      archivedAt: status === 'archived' ? new Date(record.runEndsAt).toISOString() : null,
    };
  }
}

/** Fixed one-hour window per key, starting at the key's first request in the window. */
class FixedWindowLimiter {
  readonly #windows = new Map<string, { start: number; count: number }>();

  constructor(
    readonly limit: number,
    readonly now: () => number,
  ) {}

  /** Counts a request; returns the seconds to wait when over the limit. */
  take(key: string): number | undefined {
    const now = this.now();
    let window = this.#windows.get(key);
    if (!window || now >= window.start + HOUR_MS) {
      window = { start: now, count: 0 };
      this.#windows.set(key, window);
    }
    if (window.count >= this.limit) return Math.max(1, Math.ceil((window.start + HOUR_MS - now) / 1000));
    window.count += 1;
    return undefined;
  }
}
