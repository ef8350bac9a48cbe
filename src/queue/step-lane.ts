import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { z } from 'zod';
import type { FailedJob, Lane, LaneCounts, LaneDefinition, QueueInspector } from './engine.js';
import { checkAddOptions, FAILED_KEPT, parseData, summarise } from './job-rules.js';
import { unavailable } from './redis-connection.js';
import type { StepAdder } from './step-adder.js';
import {
  formatEntry,
  parseEntry,
  parseFailure,
  stepClientName,
  stepKeys,
  stepScripts,
  stepWakeChannel,
} from './step-store.js';

/** Where a step lane's adds go, and the worker of this process that takes its jobs, if it has one. */
export interface StepLaneOptions {
  adder: StepAdder;
  prefix: string;
  open: () => void;
  localWorker: () => { wake?(): void } | undefined;
}

/**
 * The adding side of a step lane (see step-worker.ts for why these lanes are not BullMQ's): one script, four Redis
 * commands, adds a job unless its id is already waiting, delayed or running. A job due now is claimed at once: by
 * this process's worker, woken here, or, when this process works no such lane (the web role), by the workers of
 * the others, woken through the wake channel (step-wakes.ts).
 */
export function stepLane<S extends z.ZodType>(
  definition: LaneDefinition<S>,
  { adder, prefix, open, localWorker }: StepLaneOptions,
): Lane<z.infer<S>> {
  const keys = stepKeys(prefix, definition.name);
  let marked = false;
  return {
    name: definition.name,
    async add(data, options = {}) {
      const json = JSON.stringify(parseData(definition, data));
      const { id = randomUUID(), delayMs = 0 } = checkAddOptions(options);
      open();
      const dueAt = Date.now() + delayMs;
      const entry = formatEntry({ tries: 0, takeovers: 0, readyAt: dueAt, token: '', json });
      const worker = localWorker();
      const wake = worker === undefined && delayMs === 0 ? stepWakeChannel(prefix) : '';
      if (!marked) await adder.mark(keys);
      marked = true;
      await adder.add(keys, { id, entry, dueAt }, definition.name, wake);
      worker?.wake?.();
      return id;
    },
    schedule: () => Promise.reject(new Error(`Lane ${definition.name} runs steps: it takes no schedulers`)),
    unschedule: async () => false,
  };
}

type StepInspector = Omit<QueueInspector, 'lanes'>;

/** What an operator sees of a step lane, and the repairs, as QueueInspector promises them. */
export function stepInspector(connection: Redis, prefix: string): StepInspector {
  const guarded =
    <A extends unknown[], T>(run: (lane: string, ...args: A) => Promise<T>) =>
    async (lane: string, ...args: A): Promise<T> => {
      try {
        return await run(lane, ...args);
      } catch (error) {
        throw unavailable(error);
      }
    };
  return {
    counts: guarded((lane) => stepCounts(connection, prefix, lane)),
    consumers: guarded(async (lane) => {
      const list = String(await connection.client('LIST'));
      const name = `name=${stepClientName(prefix, lane)} `;
      return list.split('\n').filter((line) => line.includes(name)).length;
    }),
    queued: guarded(async (lane, ids: readonly string[]) => {
      const queued = new Map<string, unknown>();
      if (ids.length === 0) return queued;
      const entries = await connection.hmget(stepKeys(prefix, lane).jobs, ...ids);
      ids.forEach((id, i) => {
        const text = entries[i];
        const entry = text ? parseEntry(text) : undefined;
        // A running job's entry holds its claim's token.
        if (entry?.token === '') queued.set(id, JSON.parse(entry.json));
      });
      return queued;
    }),
    failed: guarded(async (lane, limit = 50) => {
      const keys = stepKeys(prefix, lane);
      const ids = await connection.zrevrange(keys.failed, 0, limit - 1, 'WITHSCORES');
      const pairs = Array.from({ length: ids.length / 2 }, (_, i) => [ids[2 * i] ?? '', Number(ids[2 * i + 1])]);
      if (pairs.length === 0) return [];
      const records = await connection.hmget(keys.failures, ...pairs.map(([id]) => String(id)));
      return pairs.flatMap(([id, at], i): FailedJob[] => {
        const record = records[i];
        if (!record) return [];
        const { attempts, error, json } = parseFailure(record);
        return [{ id: String(id), lane, data: summarise(json), error, attempts, failedAt: Number(at) }];
      });
    }),
    schedules: async () => [],
    retry: guarded(async (lane, id: string) => {
      const keys = stepKeys(prefix, lane);
      const args = [keys.failed, keys.failures, keys.jobs, keys.due, id, Date.now()];
      return (await stepScripts(connection).stepRetryFailed(...args)) === 1;
    }),
    remove: guarded(async (lane, id: string) => {
      const keys = stepKeys(prefix, lane);
      const [[, removed] = []] = (await connection.multi().zrem(keys.failed, id).hdel(keys.failures, id).exec()) ?? [];
      return removed === 1;
    }),
    discard: guarded((lane, match: (data: unknown) => boolean) => discardMatching(connection, prefix, lane, match)),
  };
}

async function stepCounts(connection: Redis, prefix: string, lane: string): Promise<LaneCounts> {
  const keys = stepKeys(prefix, lane);
  const now = Date.now();
  const replies = await connection
    .multi()
    .zcount(keys.due, '-inf', now)
    .zcount(keys.due, `(${now}`, '+inf')
    .zcard(keys.lease)
    .zcard(keys.failed)
    .exec();
  const [waiting = 0, delayed = 0, active = 0, failed = 0] = (replies ?? []).map(([error, count]) => {
    if (error) throw error;
    return Number(count);
  });
  return { waiting, delayed, active, failed };
}

/** Waiting and delayed jobs (read page by page, deleted only if still not started) and failed ones whose data match. */
async function discardMatching(
  connection: Redis,
  prefix: string,
  lane: string,
  match: (data: unknown) => boolean,
): Promise<number> {
  const keys = stepKeys(prefix, lane);
  let discarded = 0;
  let cursor = '0';
  do {
    const [next, fields] = await connection.hscan(keys.jobs, cursor, 'COUNT', 500);
    for (let i = 0; i < fields.length; i += 2) {
      const [id, text] = [fields[i] ?? '', fields[i + 1] ?? ''];
      const entry = parseEntry(text);
      if (entry.token !== '' || !match(JSON.parse(entry.json))) continue;
      discarded += await stepScripts(connection).stepDiscard(keys.jobs, keys.due, id, text);
    }
    cursor = next;
  } while (cursor !== '0');
  do {
    const [next, fields] = await connection.hscan(keys.failures, cursor, 'COUNT', 500);
    for (let i = 0; i < fields.length; i += 2) {
      const id = fields[i] ?? '';
      if (!match(JSON.parse(parseFailure(fields[i + 1] ?? '').json))) continue;
      const [[, removed] = []] = (await connection.multi().zrem(keys.failed, id).hdel(keys.failures, id).exec()) ?? [];
      discarded += removed === 1 ? 1 : 0;
    }
    cursor = next;
  } while (cursor !== '0');
  return discarded;
}

/** How long a failed step job is kept and how many, as BullMQ's lanes keep theirs. */
export const failedKept = (now: number) => ({ failedKeep: FAILED_KEPT.count, failedMinAt: now - FAILED_KEPT.ageMs });
