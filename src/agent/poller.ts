import { setTimeout as delay } from 'node:timers/promises';
import type { Deps } from '../deps.js';
import type { Logger } from '../log.js';
import { InvalidRequestError, NotFoundError, RateLimitedError } from '../mintlify/errors.js';
import { CorruptJobError, type JobRecord, type JobRef } from '../store/jobs.js';
import { nextPollInterval, nextRetryDelay, SLOW_RETRY_MS } from './backoff.js';
import { undeliveredNote } from './messages.js';
import { type Outcome, outcomeOf } from './outcome.js';
import { deliverOutcome } from './poster.js';
import { refreshRootMessage } from './root-message.js';

export interface Poller {
  start(): Promise<void>;
  /** Stops polling, waits (a bounded while) for polls in flight and hands this instance's leases back. */
  stop(): Promise<void>;
  /** Tracks a job's current round from now on, at the shortest interval (a new job, or an accepted follow-up). */
  track(ref: JobRef): void;
  /** Jobs tracked now. */
  readonly size: number;
}

export interface PollerOptions {
  /** How long a lease on a job lasts without renewal; a crashed instance's jobs move after this. */
  leaseMs?: number;
  /** How often the root message's elapsed time is refreshed while a job runs. */
  rootRefreshMs?: number;
  /** Polls in flight at once. */
  concurrency?: number;
}

interface Tracked {
  ref: JobRef;
  /** Writes `project` and `job_id` on every line. */
  log: Logger;
  nextAt: number;
  intervalMs: number;
  inFlight: boolean;
  lastStatus?: string;
  lastRefreshAt: number;
  /** `track()` ran while a poll was in flight: a new round started, so poll again soon whatever that poll saw. */
  retracked: boolean;
  /** Since when, and with what last wait, Slack has refused this round's outcome for now. */
  failingSince?: number | undefined;
  retryDelayMs?: number | undefined;
}

/** Polls in flight at once; the next due poll starts as soon as one finishes. */
export const DEFAULT_POLL_CONCURRENCY = 16;
const DEFAULT_ROOT_REFRESH_MS = 60_000;
/** A graceful stop waits this long for polls in flight (each bounded by the clients' own timeouts). */
const STOP_WAIT_MS = 5_000;

const keyOf = ({ project, jobId }: JobRef) => `${project}\u0000${jobId}`;

/**
 * Schedules the polls of every active job of every project this bot serves, on one instance at a time (a lease
 * per job), and hands what it sees to the job's transitions and to the poster. It decides when, never how:
 * the record lives in `store.jobs`, the posting rules in `poster.ts`.
 */
export function createPoller(deps: Deps, options: PollerOptions = {}): Poller {
  const { config, log, store, slack, mintlify, instanceId, projects, metrics } = deps;
  const min = config.pollIntervalMs;
  const max = config.pollMaxIntervalMs;
  const leaseMs = options.leaseMs ?? 2 * max + 1_000;
  const rootRefreshMs = options.rootRefreshMs ?? DEFAULT_ROOT_REFRESH_MS;
  const concurrency = options.concurrency ?? DEFAULT_POLL_CONCURRENCY;
  const tickMs = Math.min(500, Math.max(10, Math.floor(min / 2)));
  const discoverMs = Math.min(leaseMs / 2, 5_000);

  const tracked = new Map<string, Tracked>();
  const inFlight = new Set<Promise<void>>();
  let timer: NodeJS.Timeout | undefined;
  let nextDiscoverAt = 0;
  let running = false;

  const leaseKey = ({ project, jobId }: JobRef) => `lease:${project}:${jobId}`;

  function entryFor(ref: JobRef): Tracked {
    const now = deps.now();
    const jobLog = log.child({ project: ref.project, job_id: ref.jobId });
    return { ref, log: jobLog, nextAt: now, intervalMs: min, inFlight: false, lastRefreshAt: now, retracked: false };
  }

  function schedule(entry: Tracked, delayMs: number, patch: Partial<Tracked> = {}): void {
    Object.assign(entry, patch, { nextAt: deps.now() + delayMs });
  }

  function forget(entry: Tracked): void {
    tracked.delete(keyOf(entry.ref));
    void store.claims.release(leaseKey(entry.ref), instanceId).catch(() => {});
  }

  /** Nothing left to track: the index points at a record that ended, vanished or cannot be read. */
  async function drop(entry: Tracked): Promise<void> {
    await store.jobs.untrack(entry.ref);
    forget(entry);
  }

  async function discover(): Promise<void> {
    const found = new Set<string>();
    for (const project of projects.all) {
      for (const jobId of await store.jobs.active(project)) {
        const ref = { project, jobId };
        found.add(keyOf(ref));
        if (!tracked.has(keyOf(ref))) tracked.set(keyOf(ref), entryFor(ref));
      }
    }
    for (const [key, entry] of tracked) if (!found.has(key) && !entry.inFlight) tracked.delete(key);
  }

  async function poll(entry: Tracked): Promise<void> {
    const { ref } = entry;
    // A peer holds the lease; look again within the longest poll interval in case it stopped or died.
    if (!(await store.claims.renew(leaseKey(ref), instanceId, leaseMs))) {
      metrics.pollResult('leased_elsewhere');
      return schedule(entry, max);
    }
    entry.retracked = false;
    let record: JobRecord | undefined;
    try {
      record = await store.jobs.get(ref);
    } catch (error) {
      if (!(error instanceof CorruptJobError)) throw error;
      entry.log.error('store.corrupt_record', { problems: error.problems });
      return drop(entry);
    }
    if (!record || record.ended) return drop(entry);

    // The status first: a job that ended while nobody was polling still gets its result, however long ago.
    let job: Awaited<ReturnType<typeof mintlify.getJob>>;
    try {
      job = await mintlify.getJob(ref.project, ref.jobId);
    } catch (error) {
      // A 404, or an id the client refuses to put in a URL (a corrupt binding): either way the job is gone.
      if (error instanceof NotFoundError || error instanceof InvalidRequestError) {
        metrics.pollResult('gone');
        return conclude(entry, record, { kind: 'gone' });
      }
      metrics.pollResult('failed');
      const waitMs =
        error instanceof RateLimitedError ? error.retryAfterMs : nextPollInterval(entry.intervalMs, false, min, max);
      entry.log.warn('poller.get_failed', { error, retry_in_ms: waitMs });
      return schedule(entry, waitMs, { intervalMs: Math.min(max, waitMs) });
    }

    // Only a job still active can expire.
    const expired = deps.now() - record.roundStartedAtMs > config.jobMaxAgeMs;
    const outcome = outcomeOf(job, record) ?? (expired ? { kind: 'expired' as const } : undefined);
    metrics.pollResult(outcome ? 'ended' : 'running');
    if (outcome) return conclude(entry, record, outcome);

    const shown = { status: job.status, repository: job.source?.repository, ref: job.source?.ref, model: job.model };
    const changed = await store.jobs.observe(ref, shown);
    if (changed || deps.now() - entry.lastRefreshAt >= rootRefreshMs) {
      entry.lastRefreshAt = deps.now();
      await refreshRootMessage(deps, ref, { stateChanged: changed });
    }
    const statusChanged = entry.lastStatus !== undefined && entry.lastStatus !== job.status;
    const intervalMs = entry.retracked ? min : nextPollInterval(entry.intervalMs, statusChanged, min, max);
    schedule(entry, intervalMs, { intervalMs, lastStatus: job.status, retracked: false });
  }

  /** The round ended: post its outcome once, then end the round (or keep trying, or give up for good). */
  async function conclude(entry: Tracked, record: JobRecord, outcome: Outcome): Promise<void> {
    const { ref } = entry;
    const delivery = await deliverOutcome(deps, record, outcome);
    switch (delivery.kind) {
      case 'posted': {
        const prLink = outcome.kind === 'pull_request' ? outcome.prLink : undefined;
        const ended = await store.jobs.endRound(ref, record.round, outcome.kind, prLink);
        metrics.outcomePosted(outcome.kind);
        if (delivery.found) metrics.duplicatePrevented('outcome');
        entry.log.info('poller.outcome_posted', {
          outcome: outcome.kind,
          round: record.round,
          found: delivery.found,
        });
        // A follow-up started a new round while this one's outcome was being posted: track that one.
        if (!ended.ok) return schedule(entry, min, { intervalMs: min });
        forget(entry);
        return refreshRootMessage(deps, ref);
      }
      case 'superseded':
      case 'busy':
        return schedule(entry, min, { intervalMs: min });
      case 'retry': {
        const failingSince = entry.failingSince ?? deps.now();
        if (deps.now() - failingSince > config.jobMaxAgeMs) return giveUp(entry, record, outcome, delivery.code);
        const backoff = delivery.slow ? SLOW_RETRY_MS : nextRetryDelay(entry.retryDelayMs, min);
        const waitMs = delivery.retryAfterMs ?? backoff;
        entry.log.warn('poller.post_failed', { slack_error: delivery.code, retry_in_ms: waitMs });
        return schedule(entry, waitMs, { failingSince, retryDelayMs: backoff });
      }
      case 'final':
        return giveUp(entry, record, outcome, delivery.code);
    }
  }

  /** Slack will never take this outcome in its thread: stop tracking, tell the admin and, if possible, the requester. */
  async function giveUp(entry: Tracked, record: JobRecord, outcome: Outcome, code: string): Promise<void> {
    const stopped = await store.jobs.stopTracking(entry.ref, record.round);
    if (!stopped.ok) return schedule(entry, min, { intervalMs: min });
    entry.log.error('poller.outcome_undeliverable', {
      channel: record.channel,
      outcome: outcome.kind,
      slack_error: code,
      hint: 'Slack refused the outcome for good (channel archived, bot removed, message refused); tracking stopped',
    });
    forget(entry);
    // The bot's DM with the requester: the result is not lost even when its channel is gone.
    await slack.chat
      .postMessage({ channel: record.userId, ...undeliveredNote(record, outcome, config.jobMaxAgeMs, code) })
      .catch((error) => entry.log.warn('slack.post_failed', { op: 'agent.undelivered_note', error }));
    await refreshRootMessage(deps, entry.ref);
  }

  function run(entry: Tracked): void {
    entry.inFlight = true;
    const task = poll(entry)
      .catch((error) => {
        // Store or Slack trouble: keep the job, try again later.
        entry.log.error('poller.error', { error });
        schedule(entry, nextPollInterval(entry.intervalMs, false, min, max));
      })
      .finally(() => {
        entry.inFlight = false;
        inFlight.delete(task);
        pump();
      });
    inFlight.add(task);
  }

  /** Due jobs in the order found; refilled by a scan only once drained, so a 10,000-job map is walked once a tick. */
  let due: Tracked[] = [];
  let dueAt = 0;

  /** Starts due polls up to `concurrency`; called on every tick and whenever a poll finishes. */
  function pump(): void {
    while (running && inFlight.size < concurrency && dueAt < due.length) {
      const entry = due[dueAt++] as Tracked;
      if (tracked.get(keyOf(entry.ref)) === entry && !entry.inFlight && entry.nextAt <= deps.now()) run(entry);
    }
  }

  async function tick(): Promise<void> {
    const now = deps.now();
    if (now >= nextDiscoverAt) {
      nextDiscoverAt = now + discoverMs;
      await discover().catch((error) => log.error('poller.discover_failed', { error }));
    }
    if (dueAt >= due.length) {
      due = [];
      dueAt = 0;
      for (const entry of tracked.values()) if (!entry.inFlight && entry.nextAt <= now) due.push(entry);
    }
    pump();
  }

  function loop(): void {
    if (!running) return;
    void tick().finally(() => {
      if (running) timer = setTimeout(loop, tickMs);
    });
  }

  return {
    get size() {
      return tracked.size;
    },
    async start() {
      running = true;
      loop();
    },
    async stop() {
      running = false;
      clearTimeout(timer);
      await Promise.race([Promise.allSettled(inFlight), delay(STOP_WAIT_MS)]);
      const entries = [...tracked.values()];
      await Promise.allSettled(entries.map((entry) => store.claims.release(leaseKey(entry.ref), instanceId)));
      tracked.clear();
    },
    track(ref) {
      const entry = tracked.get(keyOf(ref)) ?? entryFor(ref);
      tracked.set(keyOf(ref), entry);
      Object.assign(entry, {
        intervalMs: min,
        lastRefreshAt: deps.now(),
        nextAt: deps.now() + min,
        retracked: entry.inFlight,
        failingSince: undefined,
        retryDelayMs: undefined,
      });
      void store.claims.takeOver(leaseKey(ref), instanceId, leaseMs).catch(() => {});
    },
  };
}
