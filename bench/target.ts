/**
 * The app under test, in its own process so its event loop, CPU time and RSS are its own.
 * `ours` is the real app (startApp); `bare` is a Bolt app built by the same createSlackApp (same
 * HTTPReceiver/App options) whose listeners only ack.
 */

import { createBindings, type JobRecord } from '../src/agent/bindings.js';
import type { PollerOptions } from '../src/agent/poller.js';
import { type RunningApp, startApp } from '../src/app.js';
import { parseConfig } from '../src/config.js';
import { createLogger } from '../src/log.js';
import { createSlackApp, type SlackApp } from '../src/slack/app.js';
import type { Store } from '../src/store/store.js';
import { serve } from './lib/rpc.js';

if (process.env.BENCH_SOURCE_MAPS === '0') process.setSourceMapsEnabled(false);

export interface StartRequest {
  variant: 'ours' | 'bare';
  /** The app's environment; the store namespace is STORE_NAMESPACE. */
  env: Record<string, string>;
  poller?: PollerOptions;
  /** Makes the in-app hourly create/follow-up limit (HOURLY_LIMIT) always pass, so every request takes the full path. */
  unlimited?: boolean;
}

export interface TargetStats {
  cpuUserUs: number;
  cpuSystemUs: number;
  rss: number;
  peakRss: number;
  heapUsed: number;
  storeOps: Record<string, number>;
  logs: { warn: number; error: number; lastProblem?: string };
}

const storeOps: Record<string, number> = {};
const logs: TargetStats['logs'] = { warn: 0, error: 0 };
let peakRss = 0;
let ours: RunningApp | undefined;
let bare: SlackApp | undefined;

setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage.rss());
}, 200).unref();

// Production logging (JSON lines on stdout, which the orchestrator sends to /dev/null), counting problems.
const log = createLogger('info', (line) => {
  if (line.includes('"level":"warn"')) logs.warn++;
  if (line.includes('"level":"error"')) {
    logs.error++;
    logs.lastProblem = line.slice(0, 400);
  }
  process.stdout.write(`${line}\n`);
});

/** Counts every store call by wrapping the live objects' methods (no hook in src needed). */
function countStore(store: Store, unlimited: boolean): void {
  const claims = store.claims as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
  for (const name of Object.keys(claims)) {
    const original = claims[name];
    if (typeof original !== 'function') continue;
    claims[name] = (...args: unknown[]) => {
      storeOps[`claims.${name}`] = (storeOps[`claims.${name}`] ?? 0) + 1;
      const result = original.apply(store.claims, args);
      if (unlimited && name === 'increment' && String(args[0]).startsWith('limit:')) {
        return result.then((r) => ({ ...(r as object), count: 1 }));
      }
      return result;
    };
  }
  const kv = store.kv as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
  for (const name of ['get', 'getMany', 'set', 'setMany', 'delete', 'deleteMany', 'has', 'clear']) {
    const original = kv[name];
    if (typeof original !== 'function') continue;
    kv[name] = (...args: unknown[]) => {
      storeOps[`kv.${name}`] = (storeOps[`kv.${name}`] ?? 0) + 1;
      return original.apply(store.kv, args);
    };
  }
}

function record(jobId: string, threadTs: string, now: number): JobRecord {
  return {
    jobId,
    channel: 'CBENCH',
    threadTs,
    userId: 'U123ALICE',
    prompt: 'bench job',
    status: 'active',
    repository: null,
    ref: null,
    model: null,
    prLink: null,
    round: 0,
    createdAtMs: now,
    roundStartedAtMs: now,
  };
}

async function inBatches<T>(items: T[], size: number, each: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(each));
}

serve(
  {
    async start(request: StartRequest) {
      const config = parseConfig(request.env);
      if (request.variant === 'bare') {
        bare = createSlackApp(config, log);
        bare.bolt.command('/agent', async ({ ack }) => ack());
        bare.bolt.command('/visitors', async ({ ack }) => ack());
        bare.bolt.event('message', async () => {}); // Bolt acks Events API requests before listeners run
        const port = await bare.start();
        bare.setReady(true);
        return { port };
      }
      ours = await startApp(config, {
        log,
        ...(request.poller && { poller: request.poller }),
      });
      countStore(ours.deps.store, request.unlimited ?? false);
      return { port: ours.port };
    },

    /** Creates `count` jobs through the app's own Mintlify client and binds each to a thread; returns the threads. */
    async seedThreads({ count }: { count: number }) {
      if (!ours) throw new Error('not started');
      const { deps } = ours;
      const bindings = createBindings(deps.store);
      const threads: string[] = [];
      for (let i = 0; i < count; i++) {
        const job = await deps.mintlify.createJob(`bench thread ${i}`);
        const threadTs = `1800000000.${String(i).padStart(6, '0')}`;
        await bindings.bind({ ...record(job.id, threadTs, deps.now()), channel: 'C123DOCS' });
        threads.push(threadTs);
      }
      return threads;
    },

    /** Binds jobs created on the simulator by the orchestrator; the poller discovers them from the active set. */
    async seedJobs({ jobs }: { jobs: { jobId: string; threadTs: string }[] }) {
      if (!ours) throw new Error('not started');
      const bindings = createBindings(ours.deps.store);
      const now = Date.now();
      await inBatches(jobs, 200, (job) => bindings.bind(record(job.jobId, job.threadTs, now)));
      return jobs.length;
    },

    stats(): TargetStats {
      const cpu = process.cpuUsage();
      const memory = process.memoryUsage();
      peakRss = Math.max(peakRss, memory.rss);
      return {
        cpuUserUs: cpu.user,
        cpuSystemUs: cpu.system,
        rss: memory.rss,
        peakRss,
        heapUsed: memory.heapUsed,
        storeOps: { ...storeOps },
        logs: { ...logs },
      };
    },

    resetPeak() {
      peakRss = process.memoryUsage.rss();
      return peakRss;
    },

    gc() {
      (globalThis as { gc?: () => void }).gc?.();
      return process.memoryUsage().rss;
    },
  },
  async () => {
    await ours?.stop();
    await bare?.stop();
  },
);
