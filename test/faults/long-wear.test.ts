import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { STEP_LANES } from '../../src/lanes.js';
import { createRedisEngine } from '../../src/queue/redis.js';
import { queueNamespace } from '../../src/queue/redis-connection.js';
import { keyFingerprint } from '../../tools/simulator/server.js';
import type { AppProcess } from '../support/app-process.js';
import { useHarness } from '../support/harness.js';
import { captureLogs } from '../support/logs.js';
import { type RedisProxy, startRedisProxy } from '../support/redis-proxy.js';
import { settle } from '../support/steps.js';
import { eventually, TEST_PROJECT_ID } from '../support/test-app.js';
import { FAST_POLL, holdCpuLock, LONG_JOB_MS, redisServerAvailable, TAKEOVER_MS, useRedisServer } from './support.js';

// Issue 30: faults that are each harmless used to add up over a job's life (tries and take-overs counted across
// steps) until tracking stopped for good, silently. Here one job lives through 20 transient Redis drops and four
// workers killed during four different steps, on real processes, and still ends once, in Slack.

const PR = 'https://github.com/acme/docs/pull/30';
const DROPS = 20;
const KILLS = 4;
const DROPS_PER_ROUND = DROPS / KILLS;
/** The stored default namespace: the processes get no STORE_NAMESPACE. */
const NAMESPACE = 'mintlify-slack';
/** Long enough to find and kill the worker holding the request; the survivor's take-over asks again. */
const HELD_MS = 2_000;
/** A poll's answer held this long, so a drop lands while its worker writes the answer down. */
const ANSWER_HELD_MS = 100;
/** A poll step's tries (src/lanes.ts): the job's life sees more failed tries than one step may have. */
const STEP_TRIES = 12;

describe.skipIf(!redisServerAvailable)(
  'a job through long wear: 1 web + 2 workers on Redis',
  // About a minute alone; real processes start and die here, so a loaded 2-core box gets room.
  { timeout: 120_000 },
  () => {
    let release: (() => void) | undefined;
    beforeAll(async () => {
      release = await holdCpuLock();
    }, 120_000);
    afterAll(() => release?.());

    const redis = useRedisServer();
    const h = useHarness({ simulator: { jobDurationMs: LONG_JOB_MS }, env: FAST_POLL });
    let proxy: RedisProxy;
    beforeEach(async () => {
      proxy = await startRedisProxy(redis().url);
    });
    afterEach(() => proxy.close());

    /** Every worker started, each with a key of its own, so the simulator's log says which one asked. */
    const workers: { key: string; process: AppProcess }[] = [];
    let started = 0;
    afterEach(() => {
      workers.length = 0;
    });
    async function startWorker(): Promise<void> {
      const key = `mint_wear_worker_${++started}`;
      workers.push({ key, process: await h.spawn({ REDIS_URL: proxy.url, ROLE: 'worker', MINTLIFY_API_KEY: key }) });
    }

    it('20 Redis drops and 4 workers killed during different steps: the PR is posted once, the root is final', async () => {
      const web = await h.spawn({ REDIS_URL: proxy.url, ROLE: 'web' });
      await Promise.all([startWorker(), startWorker()]);
      const { jobId, rootTs } = await h.startJob('Document the retry policy', { app: web });
      const polls = () => h.sim.requests.filter((r) => r.method === 'GET' && r.path.endsWith(`/${jobId}`));
      /** Waits until the job has been asked about `more` more times: its polls go on, step after step. */
      const goesOn = async (more: number, what: string) => {
        const seen = polls().length;
        await eventually(() => polls().length >= seen + more, TAKEOVER_MS + 8_000, what);
      };
      await goesOn(1, 'the first poll');
      const held = async (delayMs: number, what: string) => {
        const seen = polls().length;
        h.sim.injectFault({ kind: 'slow', delayMs, count: 1, match: { method: 'GET', path: new RegExp(jobId) } });
        return eventually(() => polls()[seen], 5_000, what);
      };
      /**
       * Cuts every process's Redis connections while a worker writes a poll's answer down (held in the proxy), so
       * the step's try fails and is tried again; connecting again is open at once.
       */
      const dropMidStep = async (what: string) => {
        await held(ANSWER_HELD_MS, what);
        proxy.pause();
        await settle(ANSWER_HELD_MS + 100); // the answer is in; what the worker writes next waits in the proxy
        proxy.dropConnections();
        await proxy.resume();
      };

      const connectionsAtStart = proxy.acceptedCount();
      const killedAtPoll: number[] = [];
      let dropped = 0;
      for (let round = 1; round <= KILLS; round++) {
        for (let i = 0; i < DROPS_PER_ROUND; i++) {
          dropped += 1;
          await dropMidStep(`the poll before drop ${dropped}`);
          await goesOn(2, `polls after drop ${dropped}`);
        }

        // Hold the next poll's request, so the kill lands during a step: the worker that asked dies mid-step.
        const seen = polls().length;
        const asked = await held(HELD_MS, `the poll held before kill ${round}`);
        const doomed = workers.find((w) => keyFingerprint(w.key) === asked.keyFingerprint);
        if (!doomed) throw new Error(`no worker holds key fingerprint ${asked.keyFingerprint}`);
        expect(doomed.process.child.signalCode, 'the worker holding the step is alive').toBeNull();
        expect(await doomed.process.kill('SIGKILL')).toBeNull();
        killedAtPoll.push(seen);
        const replacement = startWorker(); // starting while the survivor works alone
        try {
          // The survivor takes the step over, then the job steps on past it: the next kill is in another step.
          await goesOn(3, `polls after kill ${round}`);
        } finally {
          await replacement; // handed to the harness, which stops it after the test, whatever happens here
        }
      }
      expect(dropped).toBe(DROPS);
      // Each drop cut every process's connections, and they connected again.
      expect(proxy.acceptedCount()).toBeGreaterThan(connectionsAtStart + DROPS);
      expect(new Set(killedAtPoll).size).toBe(KILLS);

      h.sim.endJob(jobId, { status: 'completed', prLink: PR });
      const prPosts = () => h.threadPosts(rootTs).filter((c) => String(c.args.text).includes(PR));
      await eventually(() => prPosts().length === 1, TAKEOVER_MS + 10_000, 'the PR in its thread');
      await eventually(() => h.lastRootUpdate(rootTs).includes('Pull request ready'), 10_000, 'the root’s final state');
      await settle(TAKEOVER_MS); // a second post (a step run twice) would have come by now
      expect(prPosts()).toHaveLength(1);
      expect(h.threadPosts(rootTs)).toHaveLength(1);
      expect(h.lastRootUpdate(rootTs)).not.toContain('Tracking stopped');
      expect(h.threadPosts(rootTs).some((c) => String(c.args.text).includes('stopped tracking'))).toBe(false);
      expect(h.creates()).toHaveLength(1);

      const outputs = [web, ...workers.map((w) => w.process)].map((p) => p.output()).join('\n');
      expect(outputs).not.toContain('"event":"tracking.stopped"');
      expect(outputs).not.toContain('"event":"queue.job_failed"');
      // The drops failed more of the poll's tries over its life than one step may have; each step had its own.
      const retries = outputs.match(/"event":"queue\.job_retry","lane":"polls"/g)?.length ?? 0;
      expect(retries).toBeGreaterThan(STEP_TRIES);
      // Each kill was a take-over of the poll, by a live worker.
      expect(outputs.match(/"event":"queue\.job_stalled"[^\n]*"lane":"polls"/g)?.length ?? 0).toBeGreaterThanOrEqual(
        KILLS,
      );
      const engine = await createRedisEngine({
        redisUrl: redis().url,
        namespace: queueNamespace(NAMESPACE, TEST_PROJECT_ID),
        log: captureLogs().log,
        stepLanes: STEP_LANES,
      });
      try {
        // The app's own lanes (a wrong namespace would find none, and no failure in them).
        expect(await engine.lanes()).toEqual(expect.arrayContaining(['outcomes', 'polls', 'refreshes']));
        expect(await engine.failed('polls')).toEqual([]);
        expect(await engine.failed('outcomes')).toEqual([]);
        expect(await engine.failed('refreshes')).toEqual([]);
      } finally {
        await engine.close(0);
      }
    });

    it('a step whose worker dies four times fails for good, and the thread says tracking stopped', async () => {
      const web = await h.spawn({ REDIS_URL: proxy.url, ROLE: 'web' });
      // One worker per kill and one left: none starts during the step (a starting worker asks about tracked jobs).
      for (let i = 0; i <= KILLS; i++) await startWorker();
      const { jobId, rootTs } = await h.startJob('Document the retry policy', { app: web });
      const polls = () => h.sim.requests.filter((r) => r.method === 'GET' && r.path.endsWith(`/${jobId}`));
      await eventually(() => polls().length >= 1, TAKEOVER_MS + 8_000, 'the first poll');
      // The same step each time: every request of it is held, and the worker that asked is killed; the survivor's
      // take-over asks again. The fifth start of the step fails it (BullMQ defers that failure to the start).
      h.sim.injectFault({
        kind: 'slow',
        delayMs: HELD_MS,
        count: KILLS,
        match: { method: 'GET', path: new RegExp(jobId) },
      });
      for (let kill = 1; kill <= KILLS; kill++) {
        const seen = polls().length;
        const asked = await eventually(
          () => polls()[seen],
          TAKEOVER_MS + 8_000,
          `the step's request before kill ${kill}`,
        );
        const doomed = workers.find(
          (w) => keyFingerprint(w.key) === asked.keyFingerprint && !w.process.child.signalCode,
        );
        if (!doomed) throw new Error(`no live worker holds key fingerprint ${asked.keyFingerprint}`);
        await doomed.process.kill('SIGKILL');
      }
      const stoppedPosts = () => h.threadPosts(rootTs).filter((c) => String(c.args.text).includes('stopped tracking'));
      await eventually(() => stoppedPosts().length === 1, TAKEOVER_MS + 15_000, 'the thread told tracking stopped');
      await eventually(() => h.lastRootUpdate(rootTs).includes('Tracking stopped'), 10_000, 'the root says so');
      const outputs = [web, ...workers.map((w) => w.process)].map((p) => p.output()).join('\n');
      expect(outputs).toContain('"event":"tracking.stopped"');
      expect(outputs).toMatch(/"event":"queue\.job_failed","lane":"polls"/);
    });
  },
);
