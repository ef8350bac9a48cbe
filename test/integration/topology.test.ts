import { afterEach, describe, expect, it } from 'vitest';
import { POSTING_CLAIM_MS } from '../../src/agent/tracking/poster.js';
import type { AppProcess } from '../support/app-process.js';
import { useHarness } from '../support/harness.js';
import { type HttpTap, startHttpTap, type TappedRequest } from '../support/http-tap.js';
import { redisAvailable, redisStore } from '../support/redis.js';
import { settle } from '../support/steps.js';
import { eventually } from '../support/test-app.js';

/** The engine's lock on a running job; the stalled check runs every half of it (src/app/app.ts). */
const LOCK_MS = 2_000;
/** The lock lapses at most LOCK_MS after a kill, the next stalled check finds it within LOCK_MS / 2. */
const TAKE_OVER_MS = LOCK_MS + LOCK_MS / 2 + 2_000;

interface Worker {
  process: AppProcess;
  /** Its calls to Mintlify (the simulator) and to Slack (the stand-in). */
  mintlify: HttpTap;
  slack: HttpTap;
}

const isPoll = (r: TappedRequest, jobId: string) => r.method === 'GET' && r.path.endsWith(`/job/${jobId}`);
const form = (r: TappedRequest) => decodeURIComponent(r.body.replace(/\+/g, ' '));
/** When a worker logged a line matching `event` (its own clock, the same machine's), if it did. */
function loggedAt(worker: Worker, event: RegExp): number | undefined {
  const line = worker.process
    .output()
    .split('\n')
    .find((l) => event.test(l));
  return line ? Date.parse(JSON.parse(line).time) : undefined;
}

/**
 * The deployed topology as real processes on one Redis: 1 web (receives, acks, enqueues) and 2 workers (work the
 * lanes). Each worker reaches the simulator and the stand-in through its own tap, so the test knows which worker made
 * a call and can kill exactly that one (SIGKILL: no shutdown hook runs) in the middle of it.
 */
describe.skipIf(!redisAvailable)('1 web + 2 worker processes on Redis', { timeout: 90_000 }, () => {
  const h = useHarness({
    store: redisStore,
    simulator: { jobDurationMs: 60_000 },
    env: { QUEUE_LOCK_MS: String(LOCK_MS) },
  });
  const taps: HttpTap[] = [];
  // Registered after the harness's own hooks, so it runs before them: the taps close before the processes stop.
  afterEach(async () => {
    await Promise.all(taps.splice(0).map((tap) => tap.close()));
  });

  async function topology(): Promise<{ web: AppProcess; workers: Worker[] }> {
    const startWorker = async (): Promise<Worker> => {
      const [mintlify, slack] = await Promise.all([startHttpTap(h.sim.url), startHttpTap(h.slack.apiUrl)]);
      taps.push(mintlify, slack);
      const env = {
        ROLE: 'worker',
        MINTLIFY_API_URL: mintlify.url(h.sim.url),
        SLACK_API_URL: slack.url(h.slack.apiUrl),
      };
      return { process: await h.spawn(env), mintlify, slack };
    };
    const [web, ...workers] = await Promise.all([h.spawn({ ROLE: 'web' }), startWorker(), startWorker()]);
    return { web: web as AppProcess, workers: workers as Worker[] };
  }

  /** Arms `hook` on both workers' taps; the first request it picks kills that worker. Resolves with who and when. */
  function killFirst(pick: (worker: Worker) => HttpTap, matches: (r: TappedRequest) => boolean, workers: Worker[]) {
    let armed = true;
    return new Promise<{ doomed: Worker; survivor: Worker; killedAt: number }>((resolve) => {
      for (const worker of workers) {
        const kill = async (request: TappedRequest) => {
          if (!armed || !matches(request)) return undefined;
          armed = false;
          await worker.process.kill('SIGKILL');
          const survivor = workers.find((w) => w !== worker) as Worker;
          resolve({ doomed: worker, survivor, killedAt: Date.now() });
          return 'drop' as const;
        };
        pick(worker).hooks = pick === byMintlify ? { before: kill } : { after: kill };
      }
    });
  }
  const byMintlify = (w: Worker) => w.mintlify;
  const bySlack = (w: Worker) => w.slack;

  const prPosts = (rootTs: string, pr: string) => h.threadPosts(rootTs).filter((c) => String(c.args.text).includes(pr));

  it('runs the agent flow end to end: /agent on web, the job worked by the workers, the PR posted once', async () => {
    const { web, workers } = await topology();
    const jobs = [];
    for (const n of [1, 2, 3]) jobs.push(await h.startJob(`Document topic ${n}`, { app: web }));
    for (const [i, { jobId }] of jobs.entries()) {
      h.sim.endJob(jobId, { status: 'completed', prLink: `https://github.com/acme/docs/pull/${90 + i}` });
    }
    for (const [i, { rootTs }] of jobs.entries()) {
      await eventually(() => prPosts(rootTs, `/pull/${90 + i}`).length === 1, 15_000, `the PR of job ${i}`);
    }
    await settle(1_000);
    for (const [i, { rootTs }] of jobs.entries()) expect(prPosts(rootTs, `/pull/${90 + i}`)).toHaveLength(1);
    // Web only received: every call to Mintlify came from a worker.
    const creates = workers.flatMap((w) => w.mintlify.requests.filter((r) => r.method === 'POST'));
    expect(creates).toHaveLength(3);
    expect(h.creates()).toHaveLength(3);
  });

  it('a worker killed mid-poll: the job is polled by the other within the lock time, its PR posted once', async () => {
    const { web, workers } = await topology();
    const { jobId, rootTs } = await h.startJob('Document retries', { app: web });
    const killed = killFirst(byMintlify, (r) => isPoll(r, jobId), workers);
    const { doomed, survivor, killedAt } = await eventually(() => killed, 10_000, 'a worker killed mid-poll');
    expect(doomed.process.child.signalCode).toBe('SIGKILL');

    const retaken = await eventually(
      () => survivor.mintlify.requests.find((r) => r.at > killedAt && isPoll(r, jobId)),
      TAKE_OVER_MS + 2_000,
      'the poll on the survivor',
    );
    expect(retaken.at - killedAt).toBeLessThan(TAKE_OVER_MS);
    expect(survivor.process.output()).toMatch(/"event":"queue\.job_stalled".*"lane":"polls"/);

    h.sim.endJob(jobId, { status: 'completed', prLink: 'https://github.com/acme/docs/pull/81' });
    await eventually(() => prPosts(rootTs, '/pull/81').length === 1, 10_000, 'the PR posted');
    await settle(1_500);
    expect(prPosts(rootTs, '/pull/81')).toHaveLength(1);
  });

  it('a worker killed mid-post (Slack stored the PR, the worker never heard): the other posts nothing twice', async () => {
    const { web, workers } = await topology();
    const { jobId, rootTs } = await h.startJob('Document webhooks', { app: web });
    const isOutcome = (r: TappedRequest) => r.path.endsWith('/chat.postMessage') && form(r).includes('/pull/82');
    const killed = killFirst(bySlack, isOutcome, workers);
    h.sim.endJob(jobId, { status: 'completed', prLink: 'https://github.com/acme/docs/pull/82' });
    const { survivor, killedAt } = await eventually(() => killed, 10_000, 'a worker killed mid-post');
    expect(prPosts(rootTs, '/pull/82')).toHaveLength(1); // stored by Slack before the kill

    // The survivor takes the delivery over within the lock time; the dead worker's posting claim keeps it waiting
    // (POSTING_CLAIM_MS at most), then it finds the post in the thread (Slack is the witness) and ends the round.
    const stalled = await eventually(
      () => loggedAt(survivor, /"event":"queue\.job_stalled".*"lane":"outcomes"/),
      TAKE_OVER_MS + 2_000,
      'the take-over',
    );
    expect(stalled - killedAt).toBeLessThan(TAKE_OVER_MS);
    const found = /"event":"poller\.outcome_posted".*"found":true/;
    await eventually(() => loggedAt(survivor, found), POSTING_CLAIM_MS + TAKE_OVER_MS, 'the round ended');
    await settle(1_500);
    expect(prPosts(rootTs, '/pull/82')).toHaveLength(1);
  });
});
