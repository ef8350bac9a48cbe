import { z } from 'zod';
import type { Deps } from '../../deps.js';
import { keys } from '../../store/keys.js';
import { underClaim } from '../../store/lists.js';
import type { FeedbackRef, Vote } from './buttons.js';

const DAY_MS = 24 * 60 * 60_000;
/** App Home shows the last seven days' feedback. */
const WEEK_MS = 7 * DAY_MS;
/** A project's votes are kept a day past the week they count in. */
const VOTES_TTL_MS = WEEK_MS + DAY_MS;

const VoteSchema = z.object({
  jobId: z.string(),
  round: z.number(),
  userId: z.string(),
  vote: z.enum(['up', 'down']),
  at: z.number(),
});
const VotesSchema = z.array(VoteSchema);
type StoredVote = z.infer<typeof VoteSchema>;

export interface FeedbackCount {
  up: number;
  down: number;
}

type VoteDeps = Pick<Deps, 'store' | 'instanceId' | 'now' | 'metrics'>;

/**
 * Records `userId`'s vote on a job's round, with the project's other votes of the week (one key per project, changed
 * under a claim so instances cannot lose each other's votes). A person has one vote per round: clicking the other
 * button changes it. Counted in `/metrics` per project.
 */
export async function recordVote(deps: VoteDeps, ref: FeedbackRef, userId: string): Promise<void> {
  const now = deps.now();
  const vote: StoredVote = { jobId: ref.jobId, round: ref.round, userId, vote: ref.vote, at: now };
  await underClaim(deps.store, keys.feedbackLock(ref.project), deps.instanceId, async () => {
    const others = (await readVotes(deps, ref.project)).filter(
      (v) => v.at > now - WEEK_MS && !(v.jobId === vote.jobId && v.round === vote.round && v.userId === userId),
    );
    await deps.store.kv.set(keys.feedback(ref.project), [...others, vote], VOTES_TTL_MS);
  });
  deps.metrics.feedback(ref.project, ref.vote);
}

/** The project's 👍 and 👎 of the last seven days. */
export async function weekFeedback(deps: Pick<Deps, 'store' | 'now'>, project: string): Promise<FeedbackCount> {
  const since = deps.now() - WEEK_MS;
  const votes = (await readVotes(deps, project)).filter((v) => v.at > since);
  const count = (vote: Vote) => votes.filter((v) => v.vote === vote).length;
  return { up: count('up'), down: count('down') };
}

async function readVotes(deps: Pick<Deps, 'store'>, project: string): Promise<StoredVote[]> {
  const parsed = VotesSchema.safeParse(await deps.store.kv.get(keys.feedback(project)));
  return parsed.success ? parsed.data : [];
}
