import type { Queue } from 'bullmq';
import type { Logger } from '../log.js';
import type { Lane } from './engine.js';
import { errorText, jobIdSchema } from './job-rules.js';

/** How often a step lane's worker looks for jobs left on BullMQ, and how many it moves at a time. */
const LOOK_EVERY_MS = 60_000;
const PAGE = 500;

/**
 * Jobs a step lane still holds on BullMQ (added before the lane moved to the step scheduler, or stepped there by a
 * worker of the previous release during a rolling deploy) move to the step lane: added under their id with the rest
 * of their delay, then removed from BullMQ. One that an old worker runs is locked and stays until its step puts it
 * back (the next look moves it). Resolves with how many moved.
 */
export async function moveFromBullMQ(queue: Queue, lane: Lane<unknown>, log: Logger): Promise<number> {
  const states = ['waiting', 'prioritized', 'delayed'] as const;
  const counts = await queue.getJobCounts(...states);
  if (Object.values(counts).every((count) => count === 0)) return 0;
  let moved = 0;
  for (const job of await queue.getJobs([...states], 0, PAGE - 1, true)) {
    if (!job?.id) continue;
    const delayMs = Math.max(0, job.timestamp + (job.opts.delay ?? 0) - Date.now());
    // BullMQ's own numeric ids are not the app's: such a job is added under a fresh id.
    const id = jobIdSchema.safeParse(job.id).success ? job.id : undefined;
    try {
      await lane.add(job.data, { ...(id && { id }), delayMs });
    } catch (error) {
      log.warn('queue.move_failed', { lane: lane.name, job_id: job.id, error: errorText(error) });
      continue;
    }
    // locked by an old worker (running): a later look moves it; the step lane's copy is one job either way.
    if (
      await job.remove().then(
        () => true,
        () => false,
      )
    )
      moved++;
  }
  log.info('queue.moved_from_bullmq', { lane: lane.name, jobs: moved });
  return moved;
}

/** Looks at once and then every minute until `stop` is called. */
export function keepMovingFromBullMQ(queue: Queue, lane: Lane<unknown>, log: Logger): () => void {
  const look = () =>
    moveFromBullMQ(queue, lane, log).catch((error: unknown) =>
      log.warn('queue.move_failed', { lane: lane.name, error: errorText(error) }),
    );
  void look();
  const timer = setInterval(look, LOOK_EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
}
