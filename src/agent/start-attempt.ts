import { z } from 'zod';
import type { Deps } from '../deps.js';
import { keys } from '../store/keys.js';

// A start is one run of a task; on Redis a worker that dies mid-run (SIGKILL, OOM, a deploy past its grace) has it
// taken over and run again. The root it posted (a plan card still streaming, or a status line) is kept under the
// start's id, so the run again finishes that root instead of posting a second one and creating a second job: the
// first run's create may have reached the service, and Mintlify offers no way to look it up.

const AttemptSchema = z.object({
  channel: z.string(),
  ts: z.string(),
  threadTs: z.string(),
  card: z.boolean().optional(),
  // What the root shows, so a start that is not run again (failed unrun, expired) can still finish it.
  project: z.string(),
  userId: z.string(),
  prompt: z.string(),
  contextNote: z.string().optional(),
});
export type Attempt = z.infer<typeof AttemptSchema>;

/** Longer than a start may wait on its lane (TASK_MAX_AGE_MS) and its take-overs. */
const ATTEMPT_TTL_MS = 60 * 60_000;

/** The root an earlier run of this start posted; undefined for a first run. Throws when the store does not answer. */
export async function earlierAttempt(deps: Pick<Deps, 'store'>, id: string): Promise<Attempt | undefined> {
  const parsed = AttemptSchema.safeParse(await deps.store.kv.get(keys.startAttempt(id)));
  return parsed.success ? parsed.data : undefined;
}

/** The start of a mention, a DM or a pane message: the message itself names it, whichever run makes it. */
export const turnAttempt = (turn: { channel: string; ts: string }) => `${turn.channel}:${turn.ts}`;

/** Keeps the root this run posted; one the store did not keep is posted again by a run that takes this one over. */
export async function recordAttempt(deps: Pick<Deps, 'store' | 'log'>, id: string, attempt: Attempt): Promise<void> {
  await deps.store.kv
    .set(keys.startAttempt(id), attempt, ATTEMPT_TTL_MS)
    .catch((error) => deps.log.warn('store.unavailable', { op: 'agent.start_attempt', error }));
}
