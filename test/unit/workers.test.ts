import { describe, expect, it } from 'vitest';
import { adoptTrackedJobs } from '../../src/app/workers.js';
import { StoreUnavailableError } from '../../src/store/store.js';
import { jobBinding } from '../fixtures/job.js';
import { useAgentUnit } from './agent/support.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Tries `claim` for a moment: a release under way (one Redis round trip) lands within it. */
async function eventuallyClaimed(claim: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 5; i++) if (await claim()) return;
  expect.fail('the claim was still held');
}

/** Fast retries for the tests; the claim as the app takes it unless a test shortens it. */
const FAST = { retryMs: 10 };

describe('adoptTrackedJobs: what the previous release tracked is taken over at start', () => {
  const unit = useAgentUnit();

  const activeJobs = async (...jobIds: string[]) => {
    const { deps } = unit();
    for (const jobId of jobIds) {
      await deps.store.jobs.create(jobBinding({ jobId, threadTs: `1.${jobId}` }), { status: 'active' }, deps.now());
    }
  };

  it('adds a poll for every job still in its project’s active index, none for ended ones', async () => {
    const { deps } = unit();
    await activeJobs('job_a', 'job_b', 'job_done');
    await deps.store.jobs.endRound({ project: 'proj_test', jobId: 'job_done' }, 0, 'failed');
    expect(await adoptTrackedJobs(deps, FAST)).toBe(2);
    expect(unit().tracked).toEqual([
      { project: 'proj_test', jobId: 'job_a' },
      { project: 'proj_test', jobId: 'job_b' },
    ]);
  });

  it('releases its claim when done: a restart within the minute adopts again', async () => {
    const { deps } = unit();
    await activeJobs('job_a');
    expect(await adoptTrackedJobs(deps, FAST)).toBe(1);
    expect(await adoptTrackedJobs({ ...deps, instanceId: 'restarted' }, FAST)).toBe(1);
  });

  it('a failure midway (the queue or the store not answering) is retried until every job is adopted', async () => {
    const { deps, tracked } = unit();
    await activeJobs('job_a', 'job_b', 'job_c');
    let calls = 0;
    const track = deps.tracker.track;
    deps.tracker = {
      track: async (ref) => {
        if (++calls === 2) throw new StoreUnavailableError('The store is unavailable');
        await track(ref);
      },
    };
    const get = deps.store.jobs.get.bind(deps.store.jobs);
    let gets = 0;
    deps.store.jobs.get = async (ref) => {
      if (++gets === 5) throw new StoreUnavailableError('The store is unavailable');
      return get(ref);
    };
    expect(await adoptTrackedJobs(deps, FAST)).toBe(3);
    expect(new Set(tracked.map((ref) => ref.jobId))).toEqual(new Set(['job_a', 'job_b', 'job_c']));
    expect(unit().logs.text()).toContain('tracking.adopt_retry');
  });

  it('an instance finding another at it waits: done when the other completes, takes over when it died midway', async () => {
    const { deps } = unit();
    await activeJobs('job_a');
    // Another instance holds the claim and dies without finishing: the claim lapses, this one adopts.
    await deps.store.claims.claim('tracking:adopt', 'died-midway', 200);
    expect(await adoptTrackedJobs(deps, FAST)).toBe(1);

    // Two start together: the second, starting while the first adopts (it holds the claim), waits and finds it done.
    const slow = deps.tracker.track;
    let adopting = () => {};
    const holding = new Promise<void>((resolve) => {
      adopting = resolve;
    });
    const track: typeof slow = (ref) => {
      adopting();
      return sleep(100).then(() => slow(ref));
    };
    const first = adoptTrackedJobs({ ...deps, instanceId: 'first', tracker: { track } }, FAST);
    await holding;
    const second = adoptTrackedJobs({ ...deps, instanceId: 'second' }, FAST);
    expect(await first).toBe(1);
    expect(await second).toBe(0);
  });

  it('an instance stopped midway (SIGTERM, a deploy) lets its claim go at once and ends at its next job', async () => {
    const { deps } = unit();
    await activeJobs('job_a', 'job_b', 'job_c');
    const stopping = new AbortController();
    const track = deps.tracker.track;
    let tracks = 0;
    let stopped = () => {};
    const stoppedMidway = new Promise<void>((resolve) => {
      stopped = resolve;
    });
    const first = adoptTrackedJobs(
      {
        ...deps,
        instanceId: 'first',
        stopping: stopping.signal,
        tracker: {
          // The stop arrives as the first job is being adopted, which then takes a while yet.
          track: async (ref) => {
            tracks++;
            stopping.abort();
            stopped();
            await sleep(100);
            await track(ref);
          },
        },
      },
      FAST,
    );
    await stoppedMidway;
    // Another instance takes the adoption over now, not when the claim lapses a minute later.
    await eventuallyClaimed(() => deps.store.claims.claim('tracking:adopt', 'other', 60_000));
    expect(await first).toBe(0);
    expect(tracks).toBe(1);
  });

  it('stops trying when the app stops', async () => {
    const { deps } = unit();
    await deps.store.claims.claim('tracking:adopt', 'peer', 60_000);
    const stopping = new AbortController();
    const waiting = adoptTrackedJobs({ ...deps, stopping: stopping.signal }, FAST);
    stopping.abort();
    expect(await waiting).toBe(0);
  });
});
