/**
 * What each Redis client leaves in the old generation per command: `npm run bench:promotion` (Redis on 127.0.0.1:6379,
 * database 15). BENCHMARKS §1b, "why ours' scavenges promote".
 *
 * A child process per client sends SETs of a task-sized value (600 bytes) at 500/s, one at a time as the web role's
 * enqueues arrive, for WARMUP_MS and then RUN_MS, and `v8.GCProfiler` records each young collection of RUN_MS: what
 * the old generation gained across it is what that collection promoted. Divided by the commands sent, that is the bytes each command left for a
 * full collection to free. `ioredis` is the queue's client (BullMQ's adds), `node-redis` the store's (`@keyv/redis`),
 * `node-redis-timeout` the same with the 2 s `commandOptions.timeout` the store's client had until `src/store/store.ts`
 * dropped it (an `AbortSignal.timeout` per command, alive for its 2 s).
 * Each child runs with the web role's start flags (its young generation's size), as the web process does.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { GCProfiler } from 'node:v8';
import { createClient } from '@keyv/redis';
import { Redis } from 'ioredis';
import { START_FLAGS } from '../src/app/heap-policy.js';
import { machine, percentile, round, sleep } from './lib/stats.js';

const URL_15 = 'redis://127.0.0.1:6379/15';
const RATE = 500;
const RUN_MS = 15_000;
/** Long enough that the start-up objects the first young collections promote are not counted (BENCHMARKS §1b). */
const WARMUP_MS = 4_000;
const VALUE = 'x'.repeat(600);
const CLIENTS = ['ioredis', 'node-redis', 'node-redis-timeout'] as const;
type Client = (typeof CLIENTS)[number];

async function connect(
  client: Client,
): Promise<{ set: (key: string, value: string) => Promise<unknown>; close: () => Promise<unknown> }> {
  if (client === 'ioredis') {
    const redis = new Redis(URL_15, { maxRetriesPerRequest: null });
    return { set: (key, value) => redis.set(key, value), close: () => redis.quit() };
  }
  const redis = createClient({
    url: URL_15,
    ...(client === 'node-redis-timeout' && { commandOptions: { timeout: 2_000 } }),
  });
  await redis.connect();
  return { set: (key, value) => redis.set(key, value), close: () => redis.quit() };
}

/** One client, in this process: bytes promoted per command and the young collections' pauses. */
async function measure(client: Client) {
  const redis = await connect(client);
  const send = async (ms: number) => {
    let sent = 0;
    const end = Date.now() + ms;
    while (Date.now() < end) {
      const at = Date.now();
      await redis.set(`promotion:${sent % 50}`, `${VALUE}${sent}`);
      sent++;
      await sleep(Math.max(0, 1000 / RATE - (Date.now() - at)));
    }
    return sent;
  };
  await send(WARMUP_MS);
  const profiler = new GCProfiler();
  profiler.start();
  const commands = await send(RUN_MS);
  const { statistics } = profiler.stop() ?? { statistics: [] };
  await redis.close();
  const oldSpace = (side: (typeof statistics)[number]['beforeGC']) =>
    side.heapSpaceStatistics.find((space) => space.spaceName === 'old_space')?.spaceUsedSize ?? 0;
  const young = statistics.filter((gc) => gc.gcType === 'Scavenge' || gc.gcType === 'MinorMarkSweep');
  const promoted = young.reduce((sum, gc) => sum + Math.max(0, oldSpace(gc.afterGC) - oldSpace(gc.beforeGC)), 0);
  const pauses = young.map((gc) => gc.cost / 1000);
  return {
    client,
    commands,
    youngCollections: young.length,
    promotedBytesPerCommand: Math.round(promoted / commands),
    youngPauseMedianMs: round(percentile(pauses, 50)),
    youngPauseMaxMs: round(Math.max(0, ...pauses)),
  };
}

const [only] = process.argv.slice(2);
if (only) {
  console.log(JSON.stringify(await measure(only as Client)));
} else {
  const rows = CLIENTS.map((client) => {
    const child = spawnSync(
      process.execPath,
      [...START_FLAGS.web, ...process.execArgv, fileURLToPath(import.meta.url), client],
      {
        encoding: 'utf8',
      },
    );
    if (child.status !== 0) throw new Error(`${client}: ${child.stderr}`);
    return JSON.parse(child.stdout.trim().split('\n').at(-1) ?? '{}');
  });
  console.log(
    JSON.stringify({ machine: machine(), rate: RATE, runMs: RUN_MS, valueBytes: VALUE.length, rows }, null, 2),
  );
}
