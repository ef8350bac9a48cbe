/**
 * The app under test, in its own process so its event loop, CPU time and RSS are its own.
 * `ours` is the real app (startApp); `bare` is a Bolt app built by the same createSlackTransport (same
 * HTTPReceiver/App options) whose listeners only ack.
 */

// First, as in src/index.ts: the heap policy of the role this process was started for (ROLE, bench/lib/dist.ts).
import '../src/app/heap-first.js';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { constants, type PerformanceEntry, PerformanceObserver } from 'node:perf_hooks';
import { type RunningApp, startApp } from '../src/app/app.js';
import { createProbes } from '../src/app/probes.js';
import { parseConfig } from '../src/config/config.js';
import { createLogger } from '../src/log.js';
import { createMetrics } from '../src/metrics.js';
import type { SlackTransport } from '../src/slack/transport.js';
import type { Budget } from '../src/store/budget.js';
import type { JobBinding } from '../src/store/jobs.js';
import { createStore, type Store } from '../src/store/store.js';
import { serve } from './lib/rpc.js';
import type { CreatedJob } from './tracking.js';

if (process.env.BENCH_SOURCE_MAPS === '0') process.setSourceMapsEnabled(false);

export interface StartRequest {
  variant: 'ours' | 'bare';
  /** The app's environment; the store namespace is STORE_NAMESPACE. */
  env: Record<string, string>;
  /** Makes the in-app hourly create/follow-up limit (HOURLY_LIMIT) always pass, so every request takes the full path. */
  unlimited?: boolean;
}

export interface TargetStats {
  cpuUserUs: number;
  cpuSystemUs: number;
  rss: number;
  peakRss: number;
  /**
   * The peak of the process's anonymous memory (Linux; 0 elsewhere): its RSS without the pages mapped from files,
   * node's own binary above all, which every node process on the host shares. What one more worker costs a host.
   */
  peakAnon: number;
  heapUsed: number;
  /** Where the RSS is: V8's heap (reserved and used), memory outside it (Buffers, native), in MB. */
  memoryMb: { heapTotal: number; heapUsed: number; external: number; arrayBuffers: number };
  /** Garbage collections since start by kind (`minor`, `major`, …): how many, their total and longest pause (ms). */
  gc: Record<string, { count: number; totalMs: number; maxMs: number }>;
  storeOps: Record<string, number>;
  logs: { warn: number; error: number; lastProblem?: string };
  /** Polls this process made (GET of a job at Mintlify). */
  polls: number;
}

const storeOps: Record<string, number> = {};
const logs: TargetStats['logs'] = { warn: 0, error: 0 };
let peakRss = 0;
let polls = 0;
/** While recording: each poll's job id and time (the scale bench looks for a job polled twice at once). */
let recorded: [string, number][] | undefined;
let ours: RunningApp | undefined;
let bare: SlackTransport | undefined;
let heapSession: Session | undefined;

const gcKinds: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
};
const gc: TargetStats['gc'] = {};
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const { kind: code } = (entry as PerformanceEntry & { detail: { kind: number } }).detail;
    const kind = gcKinds[code] ?? 'other';
    const seen = gc[kind] ?? { count: 0, totalMs: 0, maxMs: 0 };
    gc[kind] = seen;
    seen.count++;
    seen.totalMs += entry.duration;
    seen.maxMs = Math.max(seen.maxMs, entry.duration);
  }
}).observe({ entryTypes: ['gc'] });

setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage.rss());
}, 200).unref();

/** Linux only: elsewhere peakAnon stays 0. */
const SMAPS_ROLLUP = existsSync('/proc/self/smaps_rollup') ? '/proc/self/smaps_rollup' : undefined;
let peakAnon = 0;
/** `Anonymous:` of /proc/self/smaps_rollup (half a millisecond to read, so once a second). */
const readAnon = () => {
  const rollup = SMAPS_ROLLUP ? readFileSync(SMAPS_ROLLUP, 'utf8') : '';
  peakAnon = Math.max(peakAnon, Number(/^Anonymous:\s+(\d+) kB/m.exec(rollup)?.[1] ?? 0) * 1024);
};
setInterval(readAnon, 1_000).unref();

// Production logging (JSON lines on stdout, which the orchestrator sends to /dev/null), counting problems.
const log = createLogger('info', (line) => {
  if (line.includes('"level":"warn"')) {
    logs.warn++;
    logs.lastProblem = line.slice(0, 400);
  }
  if (line.includes('"level":"error"')) {
    logs.error++;
    logs.lastProblem = line.slice(0, 400);
  }
  process.stdout.write(`${line}\n`);
});

/** A budget that never runs out: the ack bench sends far more than 100 commands an hour. */
const unlimitedBudget: Budget = {
  take: async () => ({ ok: true, used: 1, left: 99, resetInMs: 3_600_000 }),
  refund: async () => {},
  peek: async () => ({ ok: true, used: 0, left: 100, resetInMs: 0 }),
};

/** Counts every store call by wrapping the live objects' methods (no hook in src needed). */
function countStore(store: Store, unlimited: boolean): Store {
  for (const [group, target] of [
    ['claims', store.claims],
    ['jobs', store.jobs],
  ] as const) {
    const methods = target as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
    for (const name of methodNames(target)) {
      const original = methods[name];
      if (typeof original !== 'function') continue;
      methods[name] = (...args: unknown[]) => {
        storeOps[`${group}.${name}`] = (storeOps[`${group}.${name}`] ?? 0) + 1;
        return original.apply(target, args);
      };
    }
  }
  if (unlimited) Object.assign(store, { budget: () => unlimitedBudget });
  const kv = store.kv as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
  for (const name of ['get', 'getMany', 'set', 'setMany', 'delete', 'deleteMany', 'has', 'clear']) {
    const original = kv[name];
    if (typeof original !== 'function') continue;
    kv[name] = (...args: unknown[]) => {
      storeOps[`kv.${name}`] = (storeOps[`kv.${name}`] ?? 0) + 1;
      return original.apply(store.kv, args);
    };
  }
  return store;
}

/** Own and inherited method names: the job stores are classes, whose methods live on the prototype. */
function methodNames(target: object): string[] {
  const names = new Set<string>();
  for (let o: object | null = target; o && o !== Object.prototype; o = Object.getPrototypeOf(o)) {
    for (const name of Object.getOwnPropertyNames(o)) if (name !== 'constructor') names.add(name);
  }
  return [...names];
}

function binding(project: string, jobId: string, threadTs: string, now: number): JobBinding {
  return {
    project,
    jobId,
    channel: 'CBENCH',
    threadTs,
    statusTs: threadTs,
    userId: 'U123ALICE',
    prompt: 'bench job',
    createdAtMs: now,
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
        // Imported here, as the app imports it only where it receives: a worker process never loads Bolt.
        const { createSlackTransport } = await import('../src/slack/transport.js');
        const metrics = createMetrics();
        const probes = createProbes(log, metrics);
        bare = createSlackTransport(config, log, { metrics, probes });
        bare.bolt.command('/agent', async ({ ack }) => ack());
        bare.bolt.command('/visitors', async ({ ack }) => ack());
        bare.bolt.event('message', async () => {}); // Bolt acks Events API requests before listeners run
        const port = await bare.start();
        probes.setReady(true);
        return { port };
      }
      if (config.role !== (process.env.ROLE ?? 'all'))
        throw new Error(`started for ${process.env.ROLE}, asked to run ${config.role}`);
      const store = await createStore({ redisUrl: config.redisUrl, namespace: config.storeNamespace, log });
      ours = await startApp(config, {
        log,
        store: countStore(store, request.unlimited ?? false),
      });
      const { mintlify } = ours.deps;
      const getJob = mintlify.getJob.bind(mintlify);
      mintlify.getJob = (project, jobId) => {
        polls++;
        recorded?.push([jobId, Date.now()]);
        return getJob(project, jobId);
      };
      return { port: ours.port };
    },

    /** Creates `count` jobs through the app's own Mintlify client and binds each to a thread; returns the threads. */
    async seedThreads({ count }: { count: number }) {
      if (!ours) throw new Error('not started');
      const { deps } = ours;
      const project = deps.projects.defaultProject;
      const threads: string[] = [];
      for (let i = 0; i < count; i++) {
        const created = await deps.mintlify.createJob(project, `bench thread ${i}`);
        if (!created.ok) throw new Error(`create failed: ${created.failure.code}`);
        const job = created.value;
        const threadTs = `1800000000.${String(i).padStart(6, '0')}`;
        const bound = { ...binding(project, job.id, threadTs, deps.now()), channel: 'C123DOCS' };
        await deps.store.jobs.create(bound, { status: 'active' }, deps.now());
        threads.push(threadTs);
      }
      return threads;
    },

    /** Binds jobs created on the simulator by the orchestrator and tracks each, as /agent does. */
    async seedJobs({ jobs }: { jobs: (CreatedJob & { threadTs: string })[] }) {
      if (!ours) throw new Error('not started');
      const { store, projects, tracker } = ours.deps;
      const now = Date.now();
      await inBatches(jobs, 200, async (job) => {
        const bound = binding(projects.defaultProject, job.jobId, job.threadTs, now);
        const record = await store.jobs.create(bound, job.observed, now);
        await tracker.track(record);
      });
      return jobs.length;
    },

    /**
     * Where each job's tracking stands: `running` (still polled), `ended` (its round ended, its outcome not yet
     * posted or being retried) or `missing` (its record is gone): a job not posted in time is pending unless missing.
     */
    async trackingStates({ jobIds }: { jobIds: string[] }) {
      if (!ours) throw new Error('not started');
      const { store, projects } = ours.deps;
      const project = projects.defaultProject;
      return Promise.all(
        jobIds.map(async (jobId) => {
          const record = await store.jobs.get({ project, jobId });
          return record ? (record.ended ? 'ended' : 'running') : 'missing';
        }),
      );
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
        peakAnon,
        heapUsed: memory.heapUsed,
        memoryMb: {
          heapTotal: Math.round(memory.heapTotal / 2 ** 20),
          heapUsed: Math.round(memory.heapUsed / 2 ** 20),
          external: Math.round(memory.external / 2 ** 20),
          arrayBuffers: Math.round(memory.arrayBuffers / 2 ** 20),
        },
        gc: structuredClone(gc),
        storeOps: { ...storeOps },
        logs: { ...logs },
        polls,
      };
    },

    /**
     * Starts V8's sampling heap profiler, counting objects the collector has freed too (what a request allocates,
     * not what it keeps), or stops it, writes the profile to `file` and returns the bytes it estimates were allocated.
     */
    async heapSampling({ file }: { file?: string }) {
      if (!file) {
        heapSession = new Session();
        heapSession.connect();
        await heapSession.post('HeapProfiler.startSampling', {
          samplingInterval: 4096,
          includeObjectsCollectedByMinorGC: true,
          includeObjectsCollectedByMajorGC: true,
        });
        return 0;
      }
      if (!heapSession) throw new Error('not sampling');
      const { profile } = await heapSession.post('HeapProfiler.stopSampling');
      heapSession.disconnect();
      heapSession = undefined;
      writeFileSync(file, JSON.stringify(profile));
      let bytes = 0;
      const add = (node: typeof profile.head) => {
        bytes += node.selfSize;
        for (const child of node.children) add(child);
      };
      add(profile.head);
      return bytes;
    },

    /** Starts recording polls, or stops and returns what was recorded. */
    recordPolls({ on }: { on: boolean }) {
      const done = recorded ?? [];
      recorded = on ? [] : undefined;
      return on ? [] : done;
    },

    resetPeak() {
      peakRss = process.memoryUsage.rss();
      peakAnon = 0;
      readAnon();
      return peakRss;
    },

    /** A full collection (the process runs with --expose-gc), then what the heap still holds, in bytes. */
    gc() {
      (globalThis as { gc?: () => void }).gc?.();
      return process.memoryUsage().heapUsed;
    },
  },
  async () => {
    await ours?.stop();
    await bare?.stop();
  },
);
