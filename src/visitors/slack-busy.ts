import type { z } from 'zod';
import type { Deps } from '../deps.js';
import { classifySlackError } from '../slack/errors.js';
import type { Task } from '../task.js';

// Slack's 429 on a post or an edit comes back to the caller at once (src/slack/rate-wait.ts): Slack did nothing,
// and the work is handed back to its lane to be done after Retry-After, once, as the agent's lanes do (`Again`),
// instead of holding a worker while it waits.

/** How many times a person's work goes back to its lane for Slack's 429 before they are told to try again. */
export const SLACK_BUSY_TRIES = 3;

/** The wait Slack asked for when `error` is its 429; undefined for any other failure. */
export function retryAfterOf(error: unknown): number | undefined {
  const failure = classifySlackError(error);
  return failure.kind === 'rate_limited' ? failure.retryAfterMs : undefined;
}

/** `{ retryAfterMs }` when `error` is Slack's 429, to hand on with a failure's code; nothing otherwise. */
export function retryAfterField(error: unknown): { retryAfterMs?: number } {
  const retryAfterMs = retryAfterOf(error);
  return retryAfterMs === undefined ? {} : { retryAfterMs };
}

/** Queues `task` with `data` again on its lane, due after `delayMs`; false (logged) when the lane cannot take it. */
export async function handBack<S extends z.ZodType>(
  deps: Pick<Deps, 'lanes' | 'workspace' | 'now' | 'log'>,
  task: Task<S>,
  data: z.infer<S>,
  delayMs: number,
): Promise<boolean> {
  const envelope = { kind: task.kind, workspace: deps.workspace, data, queuedAt: deps.now() };
  try {
    await deps.lanes.tasks[task.lane].add(envelope, { delayMs });
    deps.log.info('visitors.slack_busy', { kind: task.kind, retry_after_ms: delayMs });
    return true;
  } catch (error) {
    deps.log.warn('visitors.slack_busy_unqueued', { kind: task.kind, error });
    return false;
  }
}
