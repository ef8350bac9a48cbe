import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { guardMetrics } from '../metrics-guard.js';
import type { Engine, JobObserver, LaneCounts, LaneStats } from './engine.js';

/** The app's metric prefix (src/metrics.ts). Labels are lane names, states and outcomes: bounded. */
const PREFIX = 'mintlify_slack_';
const STATES: (keyof LaneCounts)[] = ['waiting', 'delayed', 'active', 'failed'];

export interface QueueMetrics {
  /** Pass to the engine: counts finishes and measures waits and run times as they happen. */
  readonly observer: JobObserver;
  /** Reads the engine's counts at each scrape. */
  track(engine: Engine): void;
}

/**
 * Queue metrics on `registry`: depth per lane and state (the same on every instance, as they read one Redis: use
 * max() across instances), and per instance the jobs its workers finished, their waits and their run times.
 */
export function createQueueMetrics(registry: Registry): QueueMetrics {
  let engine: Engine | undefined;
  // One read of the engine per scrape, shared by the gauges collected in it (prom-client collects them at once),
  // so queue_stats_ok tells the result of the scrape it is part of.
  let reading: Promise<LaneStats[] | undefined> | undefined;
  const read = () =>
    (reading ??= (engine?.stats() ?? Promise.resolve(undefined))
      // a scrape without engine stats shows none (the engine logs its own failures).
      .catch(() => undefined)
      .finally(() => {
        reading = undefined;
      }));
  readingGauges(registry, read, () => engine);
  const finished = new Counter({
    name: `${PREFIX}queue_jobs_finished_total`,
    help: "Tries this instance's workers finished, by lane and outcome (completed, retried, failed for good)",
    labelNames: ['lane', 'outcome'],
    registers: [registry],
  });
  const wait = new Histogram({
    name: `${PREFIX}queue_wait_seconds`,
    help: "From due to started, for each job's and each step's first start, by lane: grows when workers do not keep up",
    labelNames: ['lane'],
    buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300],
    registers: [registry],
  });
  const duration = new Histogram({
    name: `${PREFIX}queue_job_seconds`,
    help: 'How long a try ran, by lane',
    labelNames: ['lane'],
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 15, 60],
    registers: [registry],
  });
  const guarded = guardMetrics(registry);
  const waited = guarded('queue_wait_seconds', (lane: string, ms: number) => wait.observe({ lane }, ms / 1_000));
  const ran = guarded('queue_job_seconds', (lane: string, ms: number) => duration.observe({ lane }, ms / 1_000));
  const counted = guarded('queue_jobs_finished_total', (lane: string, outcome: string) =>
    finished.inc({ lane, outcome }),
  );
  return {
    observer: {
      started(lane, waitMs) {
        if (waitMs !== undefined) waited(lane, waitMs);
      },
      finished(lane, outcome, durationMs) {
        counted(lane, outcome);
        ran(lane, durationMs);
      },
    },
    track(tracked) {
      engine = tracked;
    },
  };
}

/** Gauges read at each scrape, through one read of the engine's stats shared by the scrape. */
function readingGauges(
  registry: Registry,
  read: () => Promise<LaneStats[] | undefined>,
  engine: () => Engine | undefined,
): void {
  new Gauge({
    name: `${PREFIX}queue_stats_ok`,
    help: '1 when this scrape read the queue counts, 0 when their store did not answer',
    registers: [registry],
    async collect() {
      if (engine()) this.set((await read()) ? 1 : 0);
    },
  });
  new Gauge({
    name: `${PREFIX}queue_jobs`,
    help: 'Jobs in the queue engine now, by lane and state (waiting, delayed, active, failed)',
    labelNames: ['lane', 'state'],
    registers: [registry],
    async collect() {
      this.reset(); // no numbers rather than stale ones
      for (const stats of (await read()) ?? []) {
        for (const state of STATES) this.set({ lane: stats.lane, state }, stats[state]);
      }
    },
  });
  new Gauge({
    name: `${PREFIX}queue_consumers`,
    help: 'Worker processes taking each lane’s jobs now (the same on every instance): at 0 its work waits',
    labelNames: ['lane'],
    registers: [registry],
    async collect() {
      this.reset();
      const lanes = ((await read()) ?? []).map((stats) => stats.lane);
      const counts = await Promise.all(
        lanes.map((lane) =>
          engine()
            ?.consumers(lane)
            // a scrape without a consumer count shows none (the engine logs its own failures).
            .catch(() => undefined),
        ),
      );
      lanes.forEach((lane, i) => {
        const count = counts[i];
        if (count !== undefined) this.set({ lane }, count);
      });
    },
  });
}
