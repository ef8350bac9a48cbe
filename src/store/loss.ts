import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics.js';
import { RECORD_TTL_MS } from './jobs.js';
import { keys } from './keys.js';
import type { Store } from './store.js';

/** How often the marker is read. A thread reply in a thread the store does not know reads it at once too. */
const CHECK_EVERY_MS = 5_000;
/** Instances starting together on an empty store: one writes the first marker under this claim. */
const MARKING_MS = 30_000;

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
  return (await readMarker(store))?.lostAtMs;
}

/**
 * No marker: a first start, which writes it. Of instances starting together one writes it (under a claim) and the
 * others, finding the claim held, read it at their next check (undefined now).
 */
async function markFirstStart(store: Pick<Store, 'kv' | 'claims'>, owner: string, nowMs: number) {
  if (!(await store.claims.claim(keys.storeMarking(), owner, MARKING_MS))) return undefined;
  try {
    const written = await readMarker(store); // by one that held the claim a moment ago
    if (written) return written;
    const first = { sinceMs: nowMs };
    await store.kv.set(keys.storeMarker(), first);
    return first;
  } finally {
    await store.claims.release(keys.storeMarking(), owner);
  }
}

async function readMarker(store: Pick<Store, 'kv'>): Promise<Marker | undefined> {
  const parsed = MarkerSchema.safeParse(await store.kv.get(keys.storeMarker()));
  return parsed.success ? parsed.data : undefined;
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
 * Notices that the store lost its data: a marker written at first start vanishes, or is written afresh by an
 * instance that started on the emptied store (another `sinceMs`) before this one noticed. The instance that finds it
 * so logs an error and counts it (`store_data_lost_total`), then writes it again with the time of the loss, so every
 * instance (and the next start) knows which threads may have lost their binding. Records missing under a live
 * poll are counted by the poller (`record`).
 */
export function watchStoreLoss(
  store: Pick<Store, 'kv' | 'claims'>,
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
  const owner = randomUUID();
  // The marker's `sinceMs` names the store since its first start; a loss keeps it, so a marker with another one was
  // written by an instance that started on an emptied store before any running one noticed the loss.
  let sinceMs: number | undefined;
  // Until the start has read the marker (Redis may drop that read), each check tries the start again.
  let started = false;
  const adopt = (marker: Marker) => {
    sinceMs = marker.sinceMs;
    learned(marker.lostAtMs);
    started = true;
  };
  const begin = async () => {
    const marker = (await readMarker(store)) ?? (await markFirstStart(store, owner, now()));
    if (marker) adopt(marker);
  };
  const check = async () => {
    if (!started) return begin();
    const marker = await readMarker(store);
    if (marker && (marker.sinceMs === sinceMs || (marker.lostAtMs ?? 0) > (lostAtMs ?? 0))) return adopt(marker);
    const atMs = now();
    deps.log.error('store.data_lost', { message: DATA_LOST_MESSAGE });
    deps.metrics.storeDataLost('marker');
    learned(atMs);
    await store.kv.set(keys.storeMarker(), { sinceMs: sinceMs ?? atMs, lostAtMs: atMs });
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
