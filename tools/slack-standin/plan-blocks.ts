// The agent blocks (docs.slack.dev/reference/block-kit/blocks/plan-block and task-card-block): a `plan` is a titled
// sequence of `task_card`s; a task card has an id, a plain-text title, an optional status, and its details and
// output as one `rich_text` each. Streamed `task_update` chunks are stored as these blocks (`methods/streams.ts`).

type Json = Record<string, unknown>;
export type Fail = (pointer: string, what: string) => void;

/** A task's states ("Can be pending, in_progress, complete, or error"). */
export const TASK_STATUSES = ['pending', 'in_progress', 'complete', 'error'] as const;

export function checkPlan(block: Json, at: string, fail: Fail): void {
  if (typeof block.title !== 'string' || block.title.length === 0) fail(`${at}/title`, 'must be a non-empty string');
  if (block.tasks === undefined) return;
  if (!Array.isArray(block.tasks)) {
    fail(`${at}/tasks`, 'must be an array');
    return;
  }
  for (const [j, task] of (block.tasks as Json[]).entries()) {
    if (task?.type !== 'task_card') fail(`${at}/tasks/${j}/type`, 'must be task_card');
    else checkTaskCard(task, `${at}/tasks/${j}`, fail);
  }
}

export function checkTaskCard(block: Json, at: string, fail: Fail): void {
  if (typeof block.task_id !== 'string' || block.task_id.length === 0)
    fail(`${at}/task_id`, 'must be a non-empty string');
  if (typeof block.title !== 'string' || block.title.length === 0) fail(`${at}/title`, 'must be a non-empty string');
  if (block.status !== undefined && !TASK_STATUSES.includes(block.status as (typeof TASK_STATUSES)[number])) {
    fail(`${at}/status`, `must be one of ${TASK_STATUSES.join(', ')}`);
  }
  for (const field of ['details', 'output'] as const) {
    const value = block[field] as Json | undefined;
    if (value !== undefined && value?.type !== 'rich_text') fail(`${at}/${field}/type`, 'must be rich_text');
  }
}
