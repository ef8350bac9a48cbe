import { bindingFromMetadata, OUTCOME_EVENT_TYPE, observationOf, outcomeOf } from '../agent/index.js';
import type { Deps } from '../deps.js';
import { logFailure } from '../mintlify/failure.js';
import type { JobBinding } from '../store/jobs.js';
import { paced, type WaitOut } from './witnesses.js';

/** Pages of a job's thread read for the outcomes it already holds (200 replies each). */
const MAX_THREAD_PAGES = 10;

export type JobHealDeps = Pick<
  Deps,
  'store' | 'slack' | 'mintlify' | 'tracker' | 'projects' | 'config' | 'log' | 'now'
>;

/**
 * What healing did with one root message: `healed` (its record is back and its round polled), `known` (the store
 * still has it; a round not ended has its poll added again), `ended` (the service says it ended and its thread holds an outcome: nothing is missing), `gone` (the
 * service no longer has it), `old` (started before the job age limit), `other` (not a job of this app's projects),
 * `unhealable` (the service refuses its project's key: an operator has to act, healing the rest goes on).
 */
export type JobHealing = 'healed' | 'known' | 'ended' | 'gone' | 'old' | 'other' | 'unhealable';

/**
 * Rebuilds the job a root message's metadata names when the store lost its record: the record bound again from the
 * metadata, in the round the thread shows (one after its last outcome while the service says it runs), and that
 * round's poll added. The poll then posts its outcome once, as for any job.
 */
export async function healJob(
  deps: JobHealDeps,
  post: { channel: string; ts: string; payload: unknown },
  waitOut: WaitOut,
): Promise<JobHealing> {
  const binding = bindingFromMetadata(post.payload, post.channel, post.ts);
  if (!binding || !deps.projects.knows(binding.project)) return 'other';
  if (deps.now() - binding.createdAtMs > deps.config.jobMaxAgeMs) return 'old';
  const ref = { project: binding.project, jobId: binding.jobId };
  const known = await deps.store.jobs.get(ref);
  if (known) {
    // Its poll again (one job if it has one): a heal ended between binding it and adding its poll left it without.
    if (!known.ended) await deps.tracker.track({ ...ref, round: known.round });
    return 'known';
  }
  const answer = await deps.mintlify.getJob(binding.project, binding.jobId);
  if (!answer.ok) {
    const { code } = answer.failure;
    if (code === 'not_found' || code === 'refused') return 'gone';
    if (code === 'unauthorized') {
      const log = deps.log.child({ project: ref.project, job_id: ref.jobId, channel: binding.channel });
      logFailure(log, 'store.job_unhealable', answer);
      return 'unhealable';
    }
    throw new Error(`the service did not say how job ${binding.jobId} is (${code})`);
  }
  const posted = await postedRounds(deps, binding, waitOut);
  const ended = outcomeOf(answer.value, { prLink: null, round: 0 }) !== undefined;
  if (ended && posted.length > 0) return 'ended';
  const round = posted.length > 0 ? Math.max(...posted) + 1 : 0;
  // A reply in the thread may have bound the job (and started its next round) since the look above: that stands.
  let record = await deps.store.jobs.rebind(binding, observationOf(answer.value), binding.createdAtMs);
  if (!record) return 'known';
  // A follow-up's round: the store moves a round at a time, so the record is brought to it the same way.
  while (record.round < round) record = await deps.store.jobs.startRound(binding, deps.now());
  await deps.tracker.track({ ...ref, round: record.round });
  deps.log.warn('store.job_healed', { ...ref, round: record.round, channel: binding.channel });
  return 'healed';
}

/** The rounds whose outcome the job's thread holds (Slack is the witness of what was posted). */
async function postedRounds(deps: Pick<Deps, 'slack'>, binding: JobBinding, waitOut: WaitOut): Promise<number[]> {
  const rounds: number[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_THREAD_PAGES; page++) {
    const replies = await paced(waitOut, () =>
      deps.slack.conversations.replies({
        channel: binding.channel,
        ts: binding.threadTs,
        include_all_metadata: true,
        limit: 200,
        ...(cursor && { cursor }),
      }),
    );
    for (const message of replies.messages ?? []) {
      const { event_type, event_payload } = (message.metadata ?? {}) as {
        event_type?: string;
        event_payload?: Record<string, unknown>;
      };
      if (event_type !== OUTCOME_EVENT_TYPE || event_payload?.job_id !== binding.jobId) continue;
      if (event_payload.project === binding.project) rounds.push(Number(event_payload.round));
    }
    cursor = replies.response_metadata?.next_cursor || undefined;
    if (!cursor) break;
  }
  return rounds.filter(Number.isInteger);
}
