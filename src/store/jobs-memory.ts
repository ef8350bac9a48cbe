import { CacheableMemory } from '@cacheable/memory';
import {
  initialRecord,
  type JobBinding,
  type JobRecord,
  type JobRef,
  type JobStore,
  RECORD_TTL_MS,
  type Transition,
  USER_INDEX_MAX,
} from './jobs.js';

/** How often expired records and thread bindings are swept out of memory. */
const SWEEP_MS = 60_000;

/**
 * The job store of a single process. Each transition runs in one synchronous step, which makes it atomic in
 * Node exactly as the Redis scripts are on Redis; the same contract suite runs against both.
 */
export function createMemoryJobStore(): JobStore & { close(): void } {
  const records = new CacheableMemory({ checkInterval: SWEEP_MS, useClone: true });
  const threads = new CacheableMemory({ checkInterval: SWEEP_MS, useClone: false });
  const activeSets = new Map<string, Set<string>>();
  /** Each person's jobs, oldest first, the newest `USER_INDEX_MAX` kept. */
  const byUser = new Map<string, JobRef[]>();
  const key = ({ project, jobId }: JobRef) => `${project}\u0000${jobId}`;
  const threadKey = (project: string, channel: string, threadTs: string) =>
    `${project}\u0000${channel}\u0000${threadTs}`;
  const active = (project: string) => {
    const set = activeSets.get(project) ?? new Set<string>();
    activeSets.set(project, set);
    return set;
  };
  const read = (ref: JobRef) => records.get<JobRecord>(key(ref));
  const write = (record: JobRecord) => {
    records.set(key(record), record, RECORD_TTL_MS);
    return { ...record };
  };
  const bind = (record: JobRecord) => {
    threads.set(threadKey(record.project, record.channel, record.threadTs), record.jobId, RECORD_TTL_MS);
    active(record.project).add(record.jobId);
    return write(record);
  };

  const end = (ref: JobRef, round: number, ended: JobRecord['ended'], prLink?: string | null): Transition => {
    const found = read(ref);
    if (!found) return { ok: false, record: found };
    // A posted PR link is recorded even when the round moved on: it is in the thread, so the next round "updates" it.
    const record = prLink ? write({ ...found, prLink }) : found;
    if (record.round !== round || record.ended) return { ok: false, record };
    active(ref.project).delete(ref.jobId);
    return { ok: true, record: write({ ...record, ended, attempt: null, rev: record.rev + 1 }) };
  };

  return {
    async create(binding, observation, atMs) {
      const refs = (byUser.get(binding.userId) ?? []).filter((r) => key(r) !== key(binding));
      refs.push({ project: binding.project, jobId: binding.jobId });
      byUser.set(binding.userId, refs.slice(-USER_INDEX_MAX));
      return bind(initialRecord(binding, observation, atMs));
    },
    async get(ref) {
      return read(ref);
    },
    async forThread(projects, channel, threadTs) {
      for (const project of projects) {
        const jobId = threads.get<string>(threadKey(project, channel, threadTs));
        if (jobId) return { project, jobId };
      }
      return undefined;
    },
    async active(project) {
      return [...active(project)];
    },
    async startRound(binding: JobBinding, atMs) {
      const record = read(binding) ?? initialRecord(binding, { status: 'active' }, atMs);
      return bind({
        ...record,
        round: record.round + 1,
        roundStartedAtMs: atMs,
        status: 'active',
        ended: null,
        attempt: null,
        rev: record.rev + 1,
      });
    },
    async endRound(ref, round, ended, prLink) {
      return end(ref, round, ended, prLink);
    },
    async stopTracking(ref, round) {
      return end(ref, round, 'untracked');
    },
    async beginPost(ref, round) {
      const record = read(ref);
      if (!record) return { ok: false, reason: 'missing' };
      if (record.round !== round) return { ok: false, reason: 'superseded' };
      if (record.ended) return { ok: false, reason: 'ended' };
      write({ ...record, attempt: round });
      return { ok: true, earlierAttempt: record.attempt === round };
    },
    async observe(ref, observation) {
      const record = read(ref);
      if (!record) return false;
      const next = {
        ...record,
        status: observation.status,
        repository: observation.repository ?? record.repository,
        ref: observation.ref ?? record.ref,
        model: observation.model ?? record.model,
      };
      const changed = (['status', 'repository', 'ref', 'model'] as const).some((f) => next[f] !== record[f]);
      if (changed) write({ ...next, rev: record.rev + 1 });
      return changed;
    },
    async untrack(ref) {
      active(ref.project).delete(ref.jobId);
    },
    async forUser(userId, limit) {
      return (byUser.get(userId) ?? []).slice(-limit).reverse();
    },
    close() {
      records.stopIntervalCheck();
      threads.stopIntervalCheck();
    },
  };
}
