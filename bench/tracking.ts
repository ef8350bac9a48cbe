/**
 * Benchmark 2: many active jobs at once. Jobs are created on the simulator through its HTTP API, bound to
 * threads in the app's store (store.jobs.create, as /agent does), and found by the poller through the
 * active-jobs set. The orchestrator ends each job at a random time (simulator endJob) and watches the fake
 * Slack API for the outcome post in that job's thread.
 */
import { randomUUID } from 'node:crypto';
import { Agent, request } from 'node:http';
import { createClient } from '@keyv/redis';
import { nextPollInterval } from '../src/agent/tracking/backoff.js';
import { observationOf } from '../src/agent/tracking/decide.js';
import { LANES } from '../src/lanes.js';
import { AgentJobSchema } from '../src/mintlify/schemas.js';
import type { JobObservation } from '../src/store/jobs.js';
import { type FakeSlackApi, startFakeSlackApi } from '../test/fakes/fake-slack-api.js';
import { TEST_API_KEY, TEST_PROJECT_ID, testEnv } from '../test/support/test-app.js';
import { type Simulator, startSimulator } from '../tools/simulator/server.js';
import { startChild } from './lib/rpc.js';
import { percentile, round, sleep } from './lib/stats.js';
import type { StartRequest, TargetStats } from './target.js';

export const REDIS_URL = 'redis://127.0.0.1:6379/15';

export interface Scale {
  jobs: number;
  store: 'memory' | 'redis';
  pollIntervalMs: number;
  pollMaxIntervalMs: number;
  /** Node flags for the app process (e.g. a heap cap). */
  nodeFlags?: string[];
  /** Steady polling measured before any job ends (s). */
  steadyS: number;
  /** Jobs end uniformly at random within this window (s). */
  windowS: number;
  /** After the window, how long to wait at most for the last outcomes (s). */
  drainS: number;
}

export interface TrackingResult {
  jobs: number;
  store: string;
  pollIntervalMs: number;
  pollMaxIntervalMs: number;
  concurrency: number;
  nodeFlags: string;
  createAndSeedS: number;
  /** RSS of the started app before any job was bound. */
  baselineRssMb: number;
  rssMb: number;
  peakRssMb: number;
  heapUsedMb: number;
  steady: { seconds: number; polls: number; pollsPerS: number; cpuMsPerPoll: number; storeOpsPerPoll: number };
  overall: { polls: number; cpuMsPerPoll: number; storeOpsPerPoll: number; storeOps: Record<string, number> };
  detection: {
    posted: number;
    missing: number;
    duplicated: number;
    p50Ms: number;
    p99Ms: number;
    maxMs: number;
    /** Median nominal poll interval (backoff from the minimum) in effect when each job ended. */
    nominalIntervalP50Ms: number;
    /** Share of jobs whose delay was within that nominal interval. */
    withinIntervalPct: number;
  };
  appLogs: TargetStats['logs'];
}

const cpuMs = (s: TargetStats) => (s.cpuUserUs + s.cpuSystemUs) / 1000;
const ops = (s: TargetStats) => Object.values(s.storeOps).reduce((a, b) => a + b, 0);
const polls = (s: TargetStats) => s.polls; // the app's own Mintlify client's getJob calls (target.ts)
const mb = (bytes: number) => round(bytes / 2 ** 20, 1);

/** A job created on the simulator: its id, and what its create answer tells its record (as `/agent` keeps it). */
export interface CreatedJob {
  jobId: string;
  observed: JobObservation;
}

/** Creates `count` jobs on the simulator over HTTP (64 at a time). */
export async function createJobs(sim: Simulator, count: number): Promise<CreatedJob[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const url = new URL(`/v2/agent/${TEST_PROJECT_ID}/job`, sim.url);
  const one = (i: number) =>
    new Promise<CreatedJob>((resolve, reject) => {
      const body = JSON.stringify({ prompt: `bench tracked job ${i}` });
      const req = request(
        url,
        {
          method: 'POST',
          agent,
          headers: { authorization: `Bearer ${TEST_API_KEY}`, 'content-type': 'application/json' },
        },
        (res) => {
          let text = '';
          res.on('data', (c: Buffer) => {
            text += c.toString();
          });
          res.on('end', () => {
            if (res.statusCode !== 201) return reject(new Error(text));
            const job = AgentJobSchema.parse(JSON.parse(text));
            resolve({ jobId: job.id, observed: observationOf(job) });
          });
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  const jobs: CreatedJob[] = [];
  for (let i = 0; i < count; i += 64) {
    jobs.push(...(await Promise.all(Array.from({ length: Math.min(64, count - i) }, (_, k) => one(i + k)))));
  }
  agent.destroy();
  sim.requests.length = 0;
  return jobs;
}

export function nominalInterval(ageMs: number, min: number, max: number): number {
  let t = 0;
  let interval = min;
  while (t + interval < ageMs) {
    t += interval;
    interval = nextPollInterval(interval, false, min, max);
  }
  return interval;
}

async function dropNamespace(namespace: string): Promise<number> {
  const client = createClient({ url: REDIS_URL });
  await client.connect();
  let deleted = 0;
  for await (const keys of client.scanIterator({ MATCH: `${namespace}:*`, COUNT: 1000 })) {
    if (keys.length) deleted += await client.del(keys);
  }
  await client.close();
  return deleted;
}

export async function runTracking(scale: Scale, progress: (line: string) => void): Promise<TrackingResult> {
  const slack: FakeSlackApi = await startFakeSlackApi();
  const sim = await startSimulator({
    createLimitPerHour: 1e9,
    followUpLimitPerHour: 1e9,
    jobDurationMs: 6 * 3_600_000,
  });
  const namespace = `bench-${randomUUID().slice(0, 8)}`;
  const env = testEnv(slack, sim.url, {
    POLL_INTERVAL_MS: String(scale.pollIntervalMs),
    POLL_MAX_INTERVAL_MS: String(scale.pollMaxIntervalMs),
    LOG_LEVEL: 'info',
    STORE_NAMESPACE: namespace,
    ...(scale.store === 'redis' && { REDIS_URL }),
  });
  const child = startChild('target.ts', {}, scale.nodeFlags ?? []);
  const label = `tracking ${scale.jobs} ${scale.store}`;
  try {
    await child.call('start', {
      variant: 'ours',
      env,
    } satisfies StartRequest);
    const baseline = await child.call<number>('resetPeak');
    const setupStarted = Date.now();
    const created = await createJobs(sim, scale.jobs);
    const jobs = created.map((job, i) => ({ ...job, threadTs: `1900000000.${String(i).padStart(6, '0')}` }));
    await child.call('seedJobs', { jobs }, 300_000);
    const seededAt = Date.now();
    const createAndSeedS = round((seededAt - setupStarted) / 1000, 1);
    progress(`${label}: ${scale.jobs} jobs created and bound in ${createAndSeedS} s`);

    const byThread = new Map(jobs.map((j) => [j.threadTs, j.jobId]));
    const posts = new Map<string, { count: number; firstAt: number }>();
    const scan = () => {
      for (const call of slack.calls) {
        if (call.method !== 'chat.postMessage') continue;
        const jobId = byThread.get(String(call.args.thread_ts));
        if (!jobId) continue;
        const seen = posts.get(jobId);
        if (seen) seen.count++;
        else posts.set(jobId, { count: 1, firstAt: call.at });
      }
      slack.calls.length = 0; // keep the fake's memory flat; everything needed is in `posts`
      sim.requests.length = 0;
    };
    const scanner = setInterval(scan, 100);

    // Discovery happens within 5 s of seeding; then measure steady polling with no job ending.
    await sleep(6_000);
    const steadyFrom = await child.call<TargetStats>('stats');
    const steadyStart = Date.now();
    await sleep(scale.steadyS * 1000);
    const steadyTo = await child.call<TargetStats>('stats');
    const steadySeconds = (Date.now() - steadyStart) / 1000;

    // End every job at a random time in the window.
    const windowStart = Date.now();
    const plan = jobs
      .map((j) => ({ jobId: j.jobId, at: windowStart + Math.random() * scale.windowS * 1000 }))
      .sort((a, b) => a.at - b.at);
    const endedAt = new Map<string, number>();
    let nextEnd = 0;
    const ender = setInterval(() => {
      const now = Date.now();
      while (nextEnd < plan.length && (plan[nextEnd]?.at ?? Infinity) <= now) {
        const { jobId } = plan[nextEnd++] as { jobId: string };
        sim.endJob(jobId);
        endedAt.set(jobId, Date.now());
      }
    }, 10);
    const deadline = windowStart + (scale.windowS + scale.drainS) * 1000;
    while (Date.now() < deadline && (nextEnd < plan.length || posts.size < jobs.length)) await sleep(250);
    clearInterval(ender);
    await sleep(1_000); // let any duplicate post show up
    scan();
    clearInterval(scanner);
    const end = await child.call<TargetStats>('stats');

    const delays: number[] = [];
    const nominal: number[] = [];
    let within = 0;
    for (const [jobId, post] of posts) {
      const ended = endedAt.get(jobId);
      if (ended === undefined) continue;
      const delay = post.firstAt - ended;
      const interval = nominalInterval(ended - seededAt, scale.pollIntervalMs, scale.pollMaxIntervalMs);
      delays.push(delay);
      nominal.push(interval);
      if (delay <= interval) within++;
    }
    const steadyPolls = polls(steadyTo) - polls(steadyFrom);
    const allPolls = polls(end) - polls(steadyFrom);
    const opsNow: Record<string, number> = {};
    for (const [name, n] of Object.entries(end.storeOps)) opsNow[name] = n - (steadyFrom.storeOps[name] ?? 0);
    const concurrency = LANES.polls.concurrency;
    const result: TrackingResult = {
      jobs: scale.jobs,
      store: scale.store,
      pollIntervalMs: scale.pollIntervalMs,
      pollMaxIntervalMs: scale.pollMaxIntervalMs,
      concurrency,
      nodeFlags: (scale.nodeFlags ?? []).join(' ') || '-',
      createAndSeedS,
      baselineRssMb: mb(baseline),
      rssMb: mb(steadyTo.rss),
      peakRssMb: mb(end.peakRss),
      heapUsedMb: mb(steadyTo.heapUsed),
      steady: {
        seconds: round(steadySeconds, 1),
        polls: steadyPolls,
        pollsPerS: round(steadyPolls / steadySeconds, 1),
        cpuMsPerPoll: round((cpuMs(steadyTo) - cpuMs(steadyFrom)) / steadyPolls, 3),
        storeOpsPerPoll: round((ops(steadyTo) - ops(steadyFrom)) / steadyPolls, 2),
      },
      overall: {
        polls: allPolls,
        cpuMsPerPoll: round((cpuMs(end) - cpuMs(steadyFrom)) / allPolls, 3),
        storeOpsPerPoll: round((ops(end) - ops(steadyFrom)) / allPolls, 2),
        storeOps: opsNow,
      },
      detection: {
        posted: posts.size,
        missing: jobs.length - posts.size,
        duplicated: [...posts.values()].filter((p) => p.count > 1).length,
        p50Ms: round(percentile(delays, 50), 0),
        p99Ms: round(percentile(delays, 99), 0),
        maxMs: round(delays.length ? Math.max(...delays) : Number.NaN, 0),
        nominalIntervalP50Ms: percentile(nominal, 50),
        withinIntervalPct: round((100 * within) / Math.max(1, delays.length), 1),
      },
      appLogs: end.logs,
    };
    progress(
      `${label}: rss ${result.rssMb} MB (peak ${result.peakRssMb}), ${result.steady.pollsPerS} polls/s, ` +
        `${result.steady.cpuMsPerPoll} ms cpu/poll, ${result.steady.storeOpsPerPoll} store ops/poll; ` +
        `posted ${result.detection.posted}/${scale.jobs} (dup ${result.detection.duplicated}), ` +
        `delay p50 ${result.detection.p50Ms} p99 ${result.detection.p99Ms} ms`,
    );
    return result;
  } finally {
    await child.close(30_000);
    await sim.close();
    await slack.close();
    if (scale.store === 'redis') {
      const deleted = await dropNamespace(namespace).catch(() => -1);
      progress(`${label}: deleted ${deleted} keys of ${namespace}`);
    }
  }
}
