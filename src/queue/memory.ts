import type { z } from 'zod';
import type { Logger } from '../log.js';
import {
  type CloseReport,
  type Engine,
  type JobObserver,
  type Lane,
  type LaneDefinition,
  type Processor,
  type QueueInspector,
  QueueUnavailableError,
  type UnstartedJob,
} from './engine.js';
import { checkAddOptions, checkSchedule, encodeData, jobIdSchema, sameLane } from './job-rules.js';
import { MemoryLane } from './memory-lane.js';
import { createLaneTotals } from './tracker.js';

export interface MemoryEngineOptions {
  log: Logger;
  observer?: JobObserver;
}

/**
 * The engine in process (no REDIS_URL): one process, so the web and worker roles are the same one. Work waiting or
 * delayed when the process ends is lost with it; what must survive a restart lives in the job store.
 */
export function createMemoryEngine({ log, observer }: MemoryEngineOptions): Engine {
  const tracker = createLaneTotals(log, observer);
  const lanes = new Map<string, MemoryLane>();
  // Closing stops taking work at once; adds are taken until the lanes are idle (running jobs add what follows
  // them), then counted among what ends with the process.
  let closing = false;
  let closed = false;

  const laneOf = (definition: LaneDefinition): MemoryLane => {
    const found = lanes.get(definition.name);
    if (found && !sameLane(found.definition, definition)) {
      throw new Error(`Lane ${definition.name} is defined twice with different settings`);
    }
    const lane = found ?? new MemoryLane(definition, tracker);
    lanes.set(definition.name, lane);
    return lane;
  };
  const open = (): void => {
    if (closed) throw new QueueUnavailableError('The queue engine is closed');
  };

  return {
    kind: 'memory',
    ...memoryInspector(lanes),
    lane: (definition) => memoryLaneHandle(definition, laneOf(definition), open),
    work<S extends z.ZodType>(definition: LaneDefinition<S>, processor: Processor<z.infer<S>>): void {
      if (closing) throw new QueueUnavailableError('The queue engine is closing');
      const lane = laneOf(definition);
      if (lane.working) throw new Error(`Lane ${definition.name} is already worked by this engine`);
      lane.work(processor as Processor<unknown>);
    },
    async stats() {
      return [...lanes.values()].map((lane) => ({
        lane: lane.definition.name,
        ...lane.counts(),
        ...tracker.totals(lane.definition.name),
      }));
    },
    async close(deadlineMs) {
      if (closing) return { handedBack: 0, dropped: 0, unstarted: [] };
      closing = true;
      const report = await drain([...lanes.values()], deadlineMs, log);
      closed = true;
      return report;
    },
  };
}

function memoryLaneHandle<S extends z.ZodType>(
  definition: LaneDefinition<S>,
  lane: MemoryLane,
  open: () => void,
): Lane<z.infer<S>> {
  return {
    name: definition.name,
    async add(data, options = {}) {
      open();
      const checked = checkAddOptions(options);
      // No new job: the id given is queued or running already (the same work).
      return lane.add(encodeData(definition, data), checked)?.id ?? String(checked.id);
    },
    async schedule(id, schedule, data) {
      open();
      lane.schedule(jobIdSchema.parse(id), checkSchedule(schedule), encodeData(definition, data));
    },
    async unschedule(id) {
      open();
      return lane.unschedule(id);
    },
  };
}

function memoryInspector(lanes: Map<string, MemoryLane>): QueueInspector {
  return {
    lanes: async () => [...lanes.keys()].sort(),
    counts: async (name) => lanes.get(name)?.counts() ?? { waiting: 0, delayed: 0, active: 0, failed: 0 },
    consumers: async (name) => (lanes.get(name)?.working ? 1 : 0),
    queued: async (name, ids) => lanes.get(name)?.queued(ids) ?? new Map(),
    failed: async (name, limit = 50) => lanes.get(name)?.failed(limit) ?? [],
    schedules: async (name) => lanes.get(name)?.schedules() ?? [],
    retry: async (name, id) => lanes.get(name)?.retry(id) ?? false,
    remove: async (name, id) => lanes.get(name)?.remove(id) ?? false,
    discard: async (name, match) => lanes.get(name)?.discard(match) ?? 0,
  };
}

async function drain(lanes: MemoryLane[], deadlineMs: number, log: Logger): Promise<CloseReport> {
  for (const lane of lanes) lane.stop();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise((resolve) => {
    timer = setTimeout(resolve, deadlineMs);
  });
  await Promise.race([Promise.all(lanes.map((lane) => lane.idle())), deadline]);
  clearTimeout(timer);
  const handedBack = lanes.reduce((sum, lane) => sum + lane.handBack(), 0);
  await Promise.all(lanes.map((lane) => lane.idle()));
  let dropped = 0;
  const unstarted: UnstartedJob[] = [];
  for (const lane of lanes) {
    const left = lane.left();
    dropped += left.dropped;
    for (const json of left.unstarted) unstarted.push({ lane: lane.definition.name, data: JSON.parse(json) });
  }
  if (dropped > 0) {
    log.warn('queue.memory_dropped', {
      dropped,
      handed_back: handedBack,
      message: 'In-process queue closed with work left: it ends with this process (set REDIS_URL to keep it)',
    });
  }
  return { handedBack, dropped, unstarted };
}
