import { z } from 'zod';
import { DeliveryDataSchema, PollDataSchema, RefreshDataSchema } from './agent/tracking/lane-data.js';
import { HomeDataSchema } from './home/lane-data.js';
import { defineLane, type Lane, type LaneDefinition } from './queue/engine.js';
import { WorkspaceRefSchema } from './workspace-ref.js';

/**
 * The lanes handed-on work runs in (their settings below): the agent's work never waits behind reports,
 * exports or charts. Declared here once; every other list of them is made from this one.
 */
export const TASK_LANES = ['agent', 'reports', 'exports', 'charts', 'digests'] as const;
export type TaskLane = (typeof TASK_LANES)[number];

/**
 * Work a door handed on: its kind (`src/task.ts`), the workspace it came from, and its data, checked against the kind's own schema
 * when run; `queuedAt` (the web's clock, ms) when a door handed it on, so a worker taking it late answers it as
 * expired (a scheduler's occurrence has none).
 */
export const TaskEnvelopeSchema = z.object({
  kind: z.string(),
  workspace: WorkspaceRefSchema,
  data: z.unknown(),
  queuedAt: z.number().optional(),
});
export type TaskEnvelope = z.infer<typeof TaskEnvelopeSchema>;

const once = { attempts: 1, backoff: { type: 'fixed', delayMs: 0 } } as const;
/**
 * Unexpected failures (a bug, the store gone for minutes) are tried again for about half an hour, then shown as
 * failed, and the person concerned is told (`agent/tracking/stop.ts`).
 */
const persistent = (delayMs: number) => ({ attempts: 12, backoff: { type: 'exponential', delayMs } }) as const;
/** The first wait of the persistent lanes: 1 s, 2 s, 4 s … (the digests': 60 times it; tests shorten it). */
const RETRY_DELAY_MS = 1_000;
/**
 * Polls in flight per process. A poll is mostly waiting (Mintlify, Redis), so a worker's throughput is this ÷ poll
 * latency until its CPU is the limit. Since a poll's request stopped being teed (mintlify/client.ts) 32 reach the
 * CPU limit as 64 did, with fewer polls' garbage alive at once: about 12 MB less peak RSS (BENCHMARKS §8).
 */
const POLL_CONCURRENCY = 32;

/**
 * A queue per kind of work, named for it, each with its own concurrency, so a slow kind never starves a fast one:
 * the agent's work never waits behind reports, exports or charts, and an outcome never waits behind polls. Door
 * work runs once (it answers people itself; a failure is a bug, shown in the failed set); tracking is persistent.
 */
const taskLaneSettings = (retryDelayMs: number): Record<TaskLane, Omit<LaneDefinition, 'name' | 'data'>> => ({
  agent: { concurrency: 8, ...once },
  reports: { concurrency: 4, ...once },
  exports: { concurrency: 2, ...once },
  charts: { concurrency: 2, ...once },
  // A digest that did not go out (the service or Slack failing for now) is tried again for about a quarter hour
  // (1 min, 2, 4, 8), then whoever set it up is told.
  digests: { concurrency: 2, attempts: 5, backoff: { type: 'exponential', delayMs: 60 * retryDelayMs } },
});

export const laneDefinitions = (retryDelayMs = RETRY_DELAY_MS) => ({
  tasks: Object.fromEntries(
    Object.entries(taskLaneSettings(retryDelayMs)).map(([name, settings]) => [
      name,
      defineLane({ name, data: TaskEnvelopeSchema, ...settings }),
    ]),
  ) as Record<TaskLane, LaneDefinition<typeof TaskEnvelopeSchema>>,
  polls: defineLane({
    name: 'polls',
    concurrency: POLL_CONCURRENCY,
    data: PollDataSchema,
    ...persistent(retryDelayMs),
  }),
  outcomes: defineLane({ name: 'outcomes', concurrency: 8, data: DeliveryDataSchema, ...persistent(retryDelayMs) }),
  refreshes: defineLane({ name: 'refreshes', concurrency: 4, data: RefreshDataSchema, ...persistent(retryDelayMs) }),
  homes: defineLane({ name: 'homes', concurrency: 2, data: HomeDataSchema, ...persistent(retryDelayMs) }),
});
export const LANES = laneDefinitions();

/**
 * The lanes that run on the engine's step scheduler on Redis (src/queue/step-worker.ts): the tracking lanes, whose
 * jobs step (`Again`) for as long as a job lives (a few Redis commands a step instead of BullMQ's 27), and the
 * lanes of the work doors hand on, whose adds then stay off ioredis on the web role's request path
 * (src/queue/step-adder.ts). The digests stay on BullMQ, whose job schedulers run them.
 */
export const STEP_LANES: ReadonlySet<string> = new Set([
  ...TASK_LANES.filter((lane) => lane !== 'digests'),
  'polls',
  'outcomes',
  'refreshes',
  'homes',
]);
export type LaneDefinitions = typeof LANES;

/** The adding side of every lane, as features hold it. */
export interface Lanes {
  tasks: Record<TaskLane, Lane<TaskEnvelope>>;
  polls: Lane<z.infer<typeof PollDataSchema>>;
  outcomes: Lane<z.infer<typeof DeliveryDataSchema>>;
  refreshes: Lane<z.infer<typeof RefreshDataSchema>>;
  homes: Lane<z.infer<typeof HomeDataSchema>>;
}
