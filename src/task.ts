import type { z } from 'zod';
import type { Deps } from './deps.js';
import type { TaskLane } from './lanes.js';

/**
 * Why work is not done: the queue's store does not answer, the in-process queue stopped with it waiting, no worker
 * takes its lane (the web role is told so at once; the work stays queued), a worker took it too late (expired), or
 * it threw something unexpected (a bug: the person hears a sentence, the job shows in the lane's failed set).
 */
export type Unavailable = 'store' | 'restarting' | 'no_worker' | 'expired' | 'failed';

/**
 * Work a person waits for (a task with an `unavailable` answer) that a worker takes later than this after it was
 * queued is answered as expired, not run: a web role left without workers for hours must not start stale commands.
 */
/**
 * Thrown by a task whose work another run is doing right now: the engine tries it again after its backoff, as for
 * any throw, but it is expected, so it is logged as such (`task.deferred`), not as a failure.
 */
export class TaskDeferred extends Error {
  override name = 'TaskDeferred';
}

export const TASK_MAX_AGE_MS = 10 * 60_000;
export const TASK_MAX_AGE_MINUTES = TASK_MAX_AGE_MS / 60_000;

/**
 * A kind of work a door hands on after its ack: its name on the queue, its lane, the schema of its data (plain and
 * serialisable: decoded text, ids, where to answer; checked again where it runs, which may be another process) and
 * what the person hears when it is not done. Each feature declares its own (`agentTasks`, `visitorsTasks`,
 * `homeTasks`); a door hands one on with `deps.dispatch(agentTasks.start, data)`, and the feature's work module
 * (`agent-work.ts`…) says which function runs it.
 */
export interface Task<S extends z.ZodType = z.ZodType> {
  kind: string;
  lane: TaskLane;
  schema: S;
  /** What the person hears when the work is not done (see `Unavailable`); none for work nobody waits on. */
  unavailable?(deps: Deps, data: z.infer<S>, why: Unavailable): Promise<void>;
}

export const defineTask = <S extends z.ZodType>(task: Task<S>): Task<S> => task;

/** The run of a task: its queue job's id, the same when a worker takes over a dead one's run. */
export interface TaskRun {
  id: string;
}

/** A task with the function that does it, where the lane's worker runs it (`src/app/dispatch.ts`). */
export interface RunnableTask<S extends z.ZodType = z.ZodType> extends Task<S> {
  run(deps: Deps, data: z.infer<S>, run: TaskRun): Promise<void>;
  /**
   * When the task is not run again (its worker died on each take-over, or it was taken over past TASK_MAX_AGE_MS):
   * finishes what a dead run left half done (a start's root) without doing the work again. True when there was
   * something: the person heard from it, and `unavailable`'s "nothing was done" would be false.
   */
  resume?(deps: Deps, data: z.infer<S>, run: TaskRun): Promise<boolean>;
}

/** `task` is run by `run`: the compiler checks that `run` (and `resume`) take the task's data. */
export const runs = <S extends z.ZodType>(
  task: Task<S>,
  run: (deps: Deps, data: z.infer<S>, run: TaskRun) => Promise<void>,
  resume?: (deps: Deps, data: z.infer<S>, run: TaskRun) => Promise<boolean>,
): RunnableTask<S> => ({ ...task, run, ...(resume && { resume }) });
