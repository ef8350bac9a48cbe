import { z } from 'zod';
import type { QueueInspector } from '../queue/engine.js';
import { type WorkspaceRef, WorkspaceRefSchema } from '../workspace-ref.js';

/** Every queue job (and every scheduler's occurrence) carries the workspace it belongs to. */
const JobOfWorkspaceSchema = z.object({ workspace: WorkspaceRefSchema });

/** Whether a queue job's data is the work of a workspace `of` picks. */
export const workOf = (of: (workspace: WorkspaceRef) => boolean) => (data: unknown) => {
  const parsed = JobOfWorkspaceSchema.safeParse(data);
  return parsed.success && of(parsed.data.workspace);
};

/** Deletes every job of the workspaces `of` picks still in the queues (waiting, delayed, failed: prompts among them). */
export async function discardJobsOf(
  queues: Pick<QueueInspector, 'lanes' | 'discard'>,
  of: (workspace: WorkspaceRef) => boolean,
) {
  let discarded = 0;
  for (const lane of await queues.lanes()) discarded += await queues.discard(lane, workOf(of));
  return discarded;
}
