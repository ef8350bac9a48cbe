import { z } from 'zod';
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics.js';
import { RECORD_TTL_MS } from './jobs.js';
import { keys } from './keys.js';
import type { Store } from './store.js';

/** How often the marker is read. A thread reply in a thread the store does not know reads it at once too. */
const CHECK_EVERY_MS = 5_000;

const MarkerSchema = z.object({ sinceMs: z.number(), lostAtMs: z.number().optional() });
type Marker = z.infer<typeof MarkerSchema>;

/** What operators read when the store lost its data. */
export const DATA_LOST_MESSAGE =
  'The store lost its data (Redis restarted without persistence, failed over to an empty replica, or was flushed): ' +
  'one instance now rebuilds the jobs in progress and the digest subscriptions from Slack and the service ' +
  '(store.healed); a job it cannot find there is taken up again by a reply in its thread. ' +
  'Run Redis with persistence (AOF or RDB) and maxmemory-policy noeviction (docs/operating.md#redis).';

/** When the store last lost its data, as its marker records it (none: never, or no marker yet). */
export async function lastLossOf(store: Pick<Store, 'kv'>): Promise<number | undefined> {
  const parsed = MarkerSchema.safeParse(await store.kv.get(keys.storeMarker()));
  return parsed.success ? parsed.data.lostAtMs : undefined;
}

export interface StoreLoss {
  /**
   * Writes the marker when there is none (a first start) and starts reading it. Rejects when the store does not
   * answer; the watch then starts at its next check.
   */
  start(): Promise<void>;
  /**
   * Whether the store lost its data after `atMs` (a thread's start, from its Slack `ts`) and within the life of a
   * job record: then a thread the store does not know may still be a job's. Reads the marker (one GET).
   */
  lostBefore(atMs: number): Promise<boolean>;
  /**
   * Calls `listener` with the time of the store's last loss once this instance knows of it (at once when it already
   * does), and again for each later loss: this instance found the marker gone, or read a loss another one found.
   */
  onLost(listener: (lostAtMs: number) => void): void;
  stop(): void;
}

/**
 * Notices that the store lost its data: a marker written at start vanishes. The instance that finds it gone logs
 * an error and counts it (`store_data_lost_total`), then writes it again with the time of the loss, so every
 * instance (and the next start) knows which threads may have lost their binding. Records missing under a live
 * poll are counted by the poller (`record`).
 */
export function watchStoreLoss(
  store: Pick<Store, 'kv'>,
  deps: { log: Logger; metrics: Pick<Metrics, 'storeDataLost'>; now?: () => number },
  everyMs = CHECK_EVERY_MS,
): StoreLoss {
  // Slack's `ts` is wall-clock time: the loss is dated on the same clock, whatever clock features read.
  const now = deps.now ?? Date.now;
  let lostAtMs: number | undefined;
  const listeners: ((lostAtMs: number) => void)[] = [];
  const learned = (atMs: number | undefined) => {
    if (atMs === undefined || atMs <= (lostAtMs ?? 0)) return;
    lostAtMs = atMs;
    for (const listener of listeners) listener(atMs);
  };
  let checking: Promise<void> | undefined;

  const write = (marker: Marker) => store.kv.set(keys.storeMarker(), marker);
  const read = async () => {
    const parsed = MarkerSchema.safeParse(await store.kv.get(keys.storeMarker()));
    return parsed.success ? parsed.data : undefined;
  };
  // Until the start has read the marker (Redis may drop that read), each check tries the start again.
  let started = false;
  const begin = async () => {
    const marker = await read();
    if (marker) learned(marker.lostAtMs);
    else await write({ sinceMs: now() });
    started = true;
  };
  const check = async () => {
    if (!started) return begin();
    const marker = await read();
    if (marker) {
      learned(marker.lostAtMs);
      return;
    }
    const atMs = now();
    deps.log.error('store.data_lost', { message: DATA_LOST_MESSAGE });
    deps.metrics.storeDataLost('marker');
    learned(atMs);
    await write({ sinceMs: atMs, lostAtMs: atMs });
  };
  // One read at a time; a store that does not answer is the health check's to report.
  const checkOnce = () => {
    checking ??= check()
      // the health check reports a store that does not answer (above); the next check tries again.
      .catch(() => {})
      .finally(() => {
        checking = undefined;
      });
    return checking;
  };
  let timer: NodeJS.Timeout | undefined;

  return {
    async start() {
      timer = setInterval(() => void checkOnce(), everyMs);
      timer.unref();
      await begin();
    },
    async lostBefore(atMs) {
      if (!timer) return false; // not started: no marker to read yet
      await checkOnce();
      return lostAtMs !== undefined && atMs < lostAtMs && now() - lostAtMs < RECORD_TTL_MS;
    },
    onLost(listener) {
      listeners.push(listener);
      if (lostAtMs !== undefined) listener(lostAtMs);
    },
    stop: () => clearInterval(timer),
  };
}
