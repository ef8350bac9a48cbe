import type { z } from 'zod';
import type { Deps, Dispatch } from '../deps.js';
import { type TaskEnvelope, TaskEnvelopeSchema } from '../lanes.js';
import type { Logger } from '../log.js';
import type { Unserved } from '../queue/consumers.js';
import { QueueUnavailableError, type UnstartedJob } from '../queue/engine.js';
import { type RunnableTask, TASK_MAX_AGE_MS, TaskDeferred, type TaskRun } from '../task.js';

/** Every kind of work a door hands on, by its kind, with what runs it (composed in `app.ts`). */
export type Work = ReadonlyMap<string, RunnableTask>;

/**
 * Hands a door's work to its task's lane. When the lane cannot take it (Redis does not answer), the person is told
 * so at once, with their text, instead of hearing nothing; so too when no worker takes the lane (the web role alone),
 * or, within seconds, when the lane's last worker left just before and their job still waits (`answerNoWorker`).
 */
export function createDispatch(deps: () => Deps, work: Work): Dispatch {
  return async <S extends z.ZodType>(handle: { kind: string; schema: S }, data: z.infer<S>) => {
    const task = work.get(handle.kind);
    if (!task) throw new Error(`unknown task kind ${handle.kind}`);
    const { kind, lane } = task;
    const { lanes, workspace, now, served, log } = deps();
    let id: string;
    try {
      id = await lanes.tasks[lane].add({ kind, workspace, data, queuedAt: now() });
    } catch (error) {
      if (!(error instanceof QueueUnavailableError)) throw error;
      log.error('queue.unavailable', { op: 'dispatch', kind, error });
      return task.unavailable?.(deps(), data, 'store');
    }
    if (served && (await served(lane, id)) === false) {
      warnNoWorker(log, lane, kind);
      await task.unavailable?.(deps(), data, 'no_worker');
    }
  };
}

/**
 * For `servedLanes`: tells the person behind a job still waiting in a lane whose last worker left since the web last
 * saw one, from the job as the lane holds it (the web keeps only its id meanwhile, not the command).
 */
export function answerNoWorker(deps: () => Deps, work: Work): Unserved {
  return async (lane, job) => {
    warnNoWorker(deps().log, lane, TaskEnvelopeSchema.safeParse(job).data?.kind);
    await answerUnrun(deps(), work, job, 'no_worker');
  };
}

function warnNoWorker(log: Logger, lane: string, kind: string | undefined): void {
  log.warn('queue.no_worker', {
    lane,
    kind,
    message: 'No worker takes this lane: its work waits. Start ROLE=worker processes on this Redis.',
  });
}

/**
 * Runs one handed-on task where the lane's worker is, with its workspace's deps: its data is checked against its
 * kind's schema first. Work a person waits for that was queued more than TASK_MAX_AGE_MS ago is answered as expired.
 * The one error policy of every task: an unexpected throw is logged and the job fails (its lane's failed set shows
 * it); on the step's `lastTry` (a lane that tries once: every throw) the person hears the task's `failed` words.
 */
export async function runTask(
  deps: Deps,
  work: Work,
  { kind, workspace, data, queuedAt }: TaskEnvelope,
  lastTry: (error: unknown) => boolean,
  run: TaskRun,
): Promise<void> {
  const task = work.get(kind);
  if (!task) throw new Error(`unknown task kind ${kind}`);
  const scoped = await deps.workspaces.scope(workspace);
  const parsed = task.schema.parse(data);
  const waitedMs = queuedAt === undefined ? 0 : deps.now() - queuedAt;
  if (task.unavailable && waitedMs > TASK_MAX_AGE_MS) {
    deps.log.warn('queue.task_expired', { kind, waited_ms: waitedMs, max_age_ms: TASK_MAX_AGE_MS });
    if (await resumed(deps, task, scoped, parsed, run)) return;
    return task.unavailable(scoped, parsed, 'expired');
  }
  try {
    await task.run(scoped, parsed, run);
  } catch (error) {
    const last = lastTry(error);
    if (error instanceof TaskDeferred && !last) deps.log.info('task.deferred', { kind, why: error.message });
    else deps.log.error('task.failed', { kind, last_try: last, error });
    if (last)
      await task.unavailable?.(scoped, parsed, 'failed').catch((answerError: unknown) => {
        deps.log.warn('task.failed_unanswered', { kind, error: answerError });
      });
    throw error;
  }
}

/**
 * Tells the person behind a handed-on task that was not run why (`restarting`: the in-process queue stopped with it
 * waiting; `failed`: its worker kept dying, so the engine failed it without running it: what a dead `run` left is
 * finished first, see `RunnableTask.resume`; `no_worker`: it waits in a lane no worker takes). Work of a workspace
 * that removed the app, or whose store does not answer, has nobody left to tell here.
 */
export async function answerUnrun(
  deps: Deps,
  work: Work,
  job: unknown,
  why: 'restarting' | 'failed' | 'no_worker',
  run?: TaskRun,
): Promise<void> {
  const envelope = TaskEnvelopeSchema.safeParse(job);
  if (!envelope.success) return;
  const { kind, workspace } = envelope.data;
  const task = work.get(kind);
  const data = task?.schema.safeParse(envelope.data.data);
  const scoped = await deps.workspaces.scope(workspace).catch(() => undefined);
  if (!task?.unavailable || !data?.success || !scoped) return;
  if (run && (await resumed(deps, task, scoped, data.data, run))) return;
  await task.unavailable(scoped, data.data, why).catch((error: unknown) => {
    deps.log.warn('queue.unrun_unanswered', { kind, why, error });
  });
}

/** Whether a dead run's leftovers were finished (`RunnableTask.resume`); when that fails, the task's answer stands. */
async function resumed(deps: Deps, task: RunnableTask, scoped: Deps, data: unknown, run: TaskRun): Promise<boolean> {
  if (!task.resume) return false;
  return task.resume(scoped, data, run).catch((error: unknown) => {
    deps.log.warn('task.resume_failed', { kind: task.kind, error });
    return false;
  });
}

/**
 * Tells the person behind each handed-on task that never started, when the in-process queue stops with it waiting
 * ("restarting, run it again"): acked work is answered, not dropped in silence. Other lanes' jobs are tracking,
 * which the job store keeps.
 */
export async function answerUnstarted(deps: Deps, work: Work, jobs: readonly UnstartedJob[]): Promise<void> {
  for (const job of jobs) await answerUnrun(deps, work, job.data, 'restarting');
}
