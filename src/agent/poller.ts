import type { Deps } from '../deps.js';
import { InvalidRequestError, NotFoundError, RateLimitedError } from '../mintlify/errors.js';
import { slackErrorCode } from '../slack/errors.js';
import { nextPollInterval } from './backoff.js';
import { type Bindings, createBindings, type JobRecord, RECORD_TTL_MS } from './bindings.js';
import { outcomeMessage } from './messages.js';
import { type Outcome, outcomeOf } from './outcome.js';
import { refreshRootMessage } from './root-message.js';

export interface Poller {
  start(): Promise<void>;
  /** Stops polling, waits for polls in flight and hands this instance's leases back. */
  stop(): Promise<void>;
  /** Tracks a job from now on at the shortest interval (new job, or a follow-up that made it active again). */
  track(record: JobRecord): void;
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
  nextAt: number;
  intervalMs: number;
  inFlight: boolean;
  lastStatus?: string;
  lastRefreshAt: number;
  /** Cached record; re-read before an outcome is posted, since a peer may have taken a follow-up. */
  record?: JobRecord;
}

/** Polls in flight at once; the next due poll starts as soon as one finishes. */
export const DEFAULT_POLL_CONCURRENCY = 16;
const POSTING_CLAIM_MS = 30_000;
const DEFAULT_ROOT_REFRESH_MS = 60_000;

/**
 * Polls every active job, on one instance at a time (a lease per job in the store), and posts each
 * outcome exactly once: the poster claims `posting:<job>:<round>` atomically, marks it posted after
 * Slack accepted the message, and releases the claim when posting failed so the next poll retries.
 */
export function createPoller(deps: Deps, options: PollerOptions = {}): Poller & { bindings: Bindings } {
  const { config, log, store, slack, mintlify, instanceId } = deps;
  const bindings = createBindings(store);
  const min = config.pollIntervalMs;
  const max = config.pollMaxIntervalMs;
  const leaseMs = options.leaseMs ?? 2 * max + 1_000;
  const rootRefreshMs = options.rootRefreshMs ?? DEFAULT_ROOT_REFRESH_MS;
  const concurrency = options.concurrency ?? DEFAULT_POLL_CONCURRENCY;
  const tickMs = Math.min(500, Math.max(10, Math.floor(min / 2)));
  const discoverMs = Math.min(leaseMs / 2, 5_000);

  const tracked = new Map<string, Tracked>();
  const inFlight = new Set<Promise<void>>();
  /** Outcomes Slack accepted whose `posted:` mark the store then failed to write: record them, never post again. */
  const postedUnrecorded = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let nextDiscoverAt = 0;
  let running = false;

  const leaseKey = (jobId: string) => `lease:${jobId}`;

  function schedule(jobId: string, delayMs: number, patch: Partial<Tracked> = {}): void {
    const entry = tracked.get(jobId);
    if (entry) Object.assign(entry, patch, { nextAt: deps.now() + delayMs });
  }

  function forget(jobId: string): void {
    tracked.delete(jobId);
    void store.claims.release(leaseKey(jobId), instanceId).catch(() => {});
  }

  async function discover(): Promise<void> {
    const ids = new Set(await bindings.activeJobIds());
    for (const id of ids) {
      if (!tracked.has(id)) {
        tracked.set(id, { nextAt: deps.now(), intervalMs: min, inFlight: false, lastRefreshAt: deps.now() });
      }
    }
    for (const id of tracked.keys()) if (!ids.has(id) && !tracked.get(id)?.inFlight) tracked.delete(id);
  }

  async function poll(jobId: string, entry: Tracked): Promise<void> {
    if (!(await store.claims.renew(leaseKey(jobId), instanceId, leaseMs))) {
      // A peer holds it; look again about when its lease would lapse if the peer died.
      entry.record = undefined;
      return schedule(jobId, leaseMs / 2);
    }
    const record = entry.record ?? (await bindings.getJob(jobId));
    if (!record || record.ended) {
      await bindings.stopTracking(jobId);
      return forget(jobId);
    }
    entry.record = record;
    if (deps.now() - record.roundStartedAtMs > config.jobMaxAgeMs) return finish(jobId, record, { kind: 'expired' });

    let job: Awaited<ReturnType<typeof mintlify.getJob>>;
    try {
      job = await mintlify.getJob(jobId);
    } catch (error) {
      // A 404, or an id the client refuses to put in a URL (a corrupt binding): either way the job is gone.
      if (error instanceof NotFoundError || error instanceof InvalidRequestError) {
        return finish(jobId, record, { kind: 'gone' });
      }
      const waitMs =
        error instanceof RateLimitedError ? error.retryAfterMs : nextPollInterval(entry.intervalMs, false, min, max);
      log.warn('poller.get_failed', { job_id: jobId, error, retry_in_ms: waitMs });
      return schedule(jobId, waitMs, { intervalMs: Math.min(max, waitMs) });
    }

    const outcome = outcomeOf(job, record);
    if (outcome) return finish(jobId, record, outcome, job.prLink ?? null);

    const changed = entry.lastStatus !== undefined && entry.lastStatus !== job.status;
    const intervalMs = nextPollInterval(entry.intervalMs, changed, min, max);
    if (deps.now() - entry.lastRefreshAt >= rootRefreshMs) {
      entry.lastRefreshAt = deps.now();
      await refreshRootMessage(deps, record);
    }
    schedule(jobId, intervalMs, { intervalMs, lastStatus: job.status });
  }

  async function finish(jobId: string, seen: JobRecord, outcome: Outcome, prLink?: string | null): Promise<void> {
    const entry = tracked.get(jobId);
    const record = await bindings.getJob(jobId);
    if (!record || record.ended) {
      await bindings.stopTracking(jobId);
      return forget(jobId);
    }
    if (record.round !== seen.round) {
      // A follow-up arrived while we polled: what we saw belongs to the previous round.
      return schedule(jobId, 0, { record, intervalMs: min });
    }
    if (!(await postOnce(record, outcome))) return schedule(jobId, entry?.intervalMs ?? min);
    const ended: JobRecord = {
      ...record,
      ended: outcome.kind,
      ...(prLink !== undefined && { prLink: prLink ?? record.prLink }),
    };
    await bindings.save(ended);
    await bindings.stopTracking(jobId);
    forget(jobId);
    await refreshRootMessage(deps, ended);
  }

  /**
   * Posts the round's outcome unless it already was. False when it must be tried again later: a peer is
   * posting it right now, or Slack refused (the claim is then released so the next poll retries).
   */
  async function postOnce(record: JobRecord, outcome: Outcome): Promise<boolean> {
    const { jobId, round } = record;
    const claim = `posting:${jobId}:${round}`;
    const postedKey = `posted:${jobId}:${round}`;
    if (await store.kv.get(postedKey)) return true;
    if (!postedUnrecorded.has(postedKey)) {
      // `renew`, not `claim`: a posting claim this instance already holds is from an attempt cut off by the
      // store (reply lost, release failed); only one poll per job runs here, so it is ours to retry now.
      if (!(await store.claims.renew(claim, instanceId, POSTING_CLAIM_MS))) return false;
      try {
        await slack.chat.postMessage({
          channel: record.channel,
          thread_ts: record.threadTs,
          unfurl_links: false,
          ...outcomeMessage(record, outcome, config.jobMaxAgeMs),
        });
      } catch (error) {
        await store.claims.release(claim, instanceId);
        log.warn('slack.post_failed', { op: 'agent.outcome', job_id: jobId, slack_error: slackErrorCode(error) });
        return false;
      }
      postedUnrecorded.add(postedKey);
    }
    await store.kv.set(postedKey, true, RECORD_TTL_MS);
    postedUnrecorded.delete(postedKey);
    log.info('poller.outcome_posted', { job_id: jobId, outcome: outcome.kind, round });
    return true;
  }

  function run(jobId: string, entry: Tracked): void {
    entry.inFlight = true;
    const task = poll(jobId, entry)
      .catch((error) => {
        // Store or Slack trouble: keep the job, try again later.
        log.error('poller.error', { job_id: jobId, error });
        schedule(jobId, nextPollInterval(entry.intervalMs, false, min, max));
      })
      .finally(() => {
        entry.inFlight = false;
        inFlight.delete(task);
        pump();
      });
    inFlight.add(task);
  }

  /** Due jobs in the order found; refilled by a scan only once drained, so a 10,000-job map is walked once a tick. */
  let due: string[] = [];
  let dueAt = 0;

  /** Starts due polls up to `concurrency`; called on every tick and whenever a poll finishes. */
  function pump(): void {
    while (running && inFlight.size < concurrency && dueAt < due.length) {
      const jobId = due[dueAt++] as string;
      const entry = tracked.get(jobId);
      if (entry && !entry.inFlight && entry.nextAt <= deps.now()) run(jobId, entry);
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
      for (const [jobId, entry] of tracked) if (!entry.inFlight && entry.nextAt <= now) due.push(jobId);
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
    bindings,
    async start() {
      running = true;
      loop();
    },
    async stop() {
      running = false;
      clearTimeout(timer);
      await Promise.allSettled(inFlight);
      await Promise.allSettled([...tracked.keys()].map((id) => store.claims.release(leaseKey(id), instanceId)));
      tracked.clear();
    },
    track(record) {
      const entry = tracked.get(record.jobId);
      const patch = { record, intervalMs: min, lastRefreshAt: deps.now(), nextAt: deps.now() + min };
      if (entry) Object.assign(entry, patch);
      else tracked.set(record.jobId, { ...patch, inFlight: false });
      void store.claims.takeOver(leaseKey(record.jobId), instanceId, leaseMs).catch(() => {});
    },
  };
}
