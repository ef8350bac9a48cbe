import { CacheableMemory } from '@cacheable/memory';
import {
  type EndedKind,
  initialRecord,
  type JobBinding,
  type JobObservation,
  type JobRecord,
  type JobRef,
  type JobStore,
  type PostPermit,
  RECORD_TTL_MS,
  STARTING_TTL_MS,
  type StoppedKind,
  type ThreadKind,
  type Transition,
  USER_INDEX_MAX,
} from './jobs.js';

/** How often expired records and thread bindings are swept out of memory. */
const SWEEP_MS = 60_000;

const key = ({ project, jobId }: JobRef) => `${project}\u0000${jobId}`;
const threadKey = (project: string, channel: string, threadTs: string) => `${project}\u0000${channel}\u0000${threadTs}`;

/**
 * A copy of the record built by one object literal, so every stored record shares one hidden class. Built by the
 * transitions' spreads, records differ in key order (each door builds its binding its own way), and in the scale
 * bench's process each of 10,000 had a class of its own: about 550 bytes a job held (BENCHMARKS §8).
 */
export function inOneShape(r: JobRecord): JobRecord {
  // Every key, the optional ones too, so a field added to the record cannot be dropped here.
  const shaped: { [K in keyof Required<JobRecord>]: JobRecord[K] } = {
    project: r.project,
    jobId: r.jobId,
    channel: r.channel,
    threadTs: r.threadTs,
    statusTs: r.statusTs,
    userId: r.userId,
    prompt: r.prompt,
    createdAtMs: r.createdAtMs,
    contextNote: r.contextNote,
    thread: r.thread,
    root: r.root,
    status: r.status,
    repository: r.repository,
    ref: r.ref,
    model: r.model,
    prLink: r.prLink,
    unsure: r.unsure,
    unsureTs: r.unsureTs,
    stoppedBy: r.stoppedBy,
    round: r.round,
    roundStartedAtMs: r.roundStartedAtMs,
    ended: r.ended,
    attempt: r.attempt,
    attemptAtMs: r.attemptAtMs,
    rev: r.rev,
  };
  return shaped;
}

/**
 * The job store of a single process. Each transition runs in one synchronous step, which makes it atomic in
 * Node exactly as the Redis scripts are on Redis; the same contract suite runs against both.
 */
export class MemoryJobStore implements JobStore {
  // What is stored is a copy made as a transition here writes (`inOneShape`), and a read hands out a shallow copy, so
  // no caller holds the stored object. Every field is a primitive, so a shallow copy is a full one, and it shares its
  // strings (a structured clone copied each again: 3 times the bytes). Not frozen: a frozen record of this size
  // turns into a dictionary, 4-5 times as big.
  readonly #records = new CacheableMemory({ checkInterval: SWEEP_MS, useClone: false });
  readonly #threads = new CacheableMemory({ checkInterval: SWEEP_MS, useClone: false });
  /** Threads whose job is being created, by `threadKey`: the kind of thread each will be. */
  readonly #starting = new CacheableMemory({ checkInterval: SWEEP_MS, useClone: false });
  readonly #activeSets = new Map<string, Set<string>>();
  /** Each person's jobs, oldest first, the newest `USER_INDEX_MAX` kept. */
  readonly #byUser = new Map<string, JobRef[]>();

  async create(binding: JobBinding, observation: JobObservation, atMs: number): Promise<JobRecord> {
    const refs = (this.#byUser.get(binding.userId) ?? []).filter((r) => key(r) !== key(binding));
    refs.push({ project: binding.project, jobId: binding.jobId });
    this.#byUser.set(binding.userId, refs.slice(-USER_INDEX_MAX));
    return this.#bind(initialRecord(binding, observation, atMs));
  }

  async rebind(binding: JobBinding, observation: JobObservation, atMs: number): Promise<JobRecord | undefined> {
    return this.#read(binding) ? undefined : this.create(binding, observation, atMs);
  }

  async get(ref: JobRef): Promise<JobRecord | undefined> {
    return this.#read(ref);
  }

  async forThread(projects: readonly string[], channel: string, threadTs: string): Promise<JobRef | undefined> {
    for (const project of projects) {
      const jobId = this.#threads.get<string>(threadKey(project, channel, threadTs));
      if (jobId) return { project, jobId };
    }
    return undefined;
  }

  async active(project: string): Promise<string[]> {
    // The index expires with the records: an id whose record expired is dropped from it.
    const set = this.#active(project);
    for (const jobId of set) if (!this.#records.has(key({ project, jobId }))) set.delete(jobId);
    return [...set];
  }

  async startRound(binding: JobBinding, atMs: number, unsureTs?: string): Promise<JobRecord> {
    const record = this.#read(binding) ?? initialRecord(binding, { status: 'active' }, atMs);
    const told = (unsureTs && (record.ended || record.unsure)) || undefined;
    const unsure = { unsure: told, unsureTs: told && unsureTs };
    const next = { ...record, round: record.round + 1, roundStartedAtMs: atMs, status: 'active', ...unsure };
    return this.#bind({ ...next, ended: null, attempt: null, rev: record.rev + 1 });
  }

  async endRound(ref: JobRef, round: number, ended: EndedKind, prLink?: string | null): Promise<Transition> {
    return this.#end(ref, round, ended, prLink);
  }

  async stopTracking(ref: JobRef, round: number, why: StoppedKind = 'untracked', by?: string): Promise<Transition> {
    return this.#end(ref, round, why, undefined, by);
  }

  async beginPost(ref: JobRef, round: number, atMs: number): Promise<PostPermit> {
    const record = this.#read(ref);
    if (!record) return { ok: false, reason: 'missing' };
    if (record.round !== round) return { ok: false, reason: 'superseded' };
    if (record.ended) return { ok: false, reason: 'ended' };
    if (record.attempt === round) return { ok: true, earlierAttempt: true, atMs: record.attemptAtMs };
    this.#write({ ...record, attempt: round, attemptAtMs: atMs });
    return { ok: true, earlierAttempt: false };
  }

  async abandonPost(ref: JobRef, round: number): Promise<void> {
    const record = this.#read(ref);
    if (record?.attempt === round) this.#write({ ...record, attempt: null });
  }

  async observe(ref: JobRef, observation: JobObservation): Promise<boolean> {
    const record = this.#read(ref);
    if (!record) return false;
    const next = {
      ...record,
      status: observation.status,
      repository: observation.repository ?? record.repository,
      ref: observation.ref ?? record.ref,
      model: observation.model ?? record.model,
      unsure: undefined,
    };
    const changed = (['status', 'repository', 'ref', 'model', 'unsure'] as const).some((f) => next[f] !== record[f]);
    if (changed) this.#write({ ...next, rev: record.rev + 1 });
    return changed;
  }

  async untrack(ref: JobRef): Promise<void> {
    this.#active(ref.project).delete(ref.jobId);
  }

  async forUser(userId: string, limit: number): Promise<JobRef[]> {
    return (this.#byUser.get(userId) ?? []).slice(-limit).reverse();
  }

  async markStarting(project: string, channel: string, threadTs: string, thread: ThreadKind): Promise<void> {
    this.#starting.set(threadKey(project, channel, threadTs), thread, STARTING_TTL_MS);
  }

  async startingIn(projects: readonly string[], channel: string, threadTs: string): Promise<ThreadKind | undefined> {
    for (const project of projects) {
      const thread = this.#starting.get<ThreadKind>(threadKey(project, channel, threadTs));
      if (thread) return thread;
    }
    return undefined;
  }

  async clearStarting(project: string, channel: string, threadTs: string): Promise<void> {
    this.#starting.delete(threadKey(project, channel, threadTs));
  }

  close(): void {
    this.#records.stopIntervalCheck();
    this.#threads.stopIntervalCheck();
    this.#starting.stopIntervalCheck();
  }

  #active(project: string): Set<string> {
    const set = this.#activeSets.get(project) ?? new Set<string>();
    this.#activeSets.set(project, set);
    return set;
  }

  #read(ref: JobRef): JobRecord | undefined {
    const stored = this.#records.get<JobRecord>(key(ref));
    return stored && { ...stored };
  }

  /** Stores a copy in one shape; `record` (built by the transition, held by nobody else) goes back to the caller. */
  #write(record: JobRecord): JobRecord {
    this.#records.set(key(record), inOneShape(record), RECORD_TTL_MS);
    return record;
  }

  #bind(record: JobRecord): JobRecord {
    this.#threads.set(threadKey(record.project, record.channel, record.threadTs), record.jobId, RECORD_TTL_MS);
    this.#active(record.project).add(record.jobId);
    return this.#write(record);
  }

  #end(ref: JobRef, round: number, ended: JobRecord['ended'], prLink?: string | null, by?: string): Transition {
    const found = this.#read(ref);
    if (!found) return { ok: false, record: found };
    // A posted PR link is recorded even when the round moved on: it is in the thread, so the next round "updates" it.
    const record = prLink ? this.#write({ ...found, prLink }) : found;
    if (record.round !== round || record.ended) return { ok: false, record };
    this.#active(ref.project).delete(ref.jobId);
    const ending = { ended, attempt: null, rev: record.rev + 1, ...(by && { stoppedBy: by }) };
    return { ok: true, record: this.#write({ ...record, ...ending }) };
  }
}
