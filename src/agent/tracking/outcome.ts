import type { AgentJob } from '../../mintlify/schemas.js';
import type { JobRecord } from '../../store/jobs.js';

/** How a tracked round ended, as the thread should hear it. */
export type Outcome =
  | { kind: 'pull_request'; prLink: string; updated: boolean }
  | { kind: 'no_changes' }
  | { kind: 'failed' }
  /** A job archived after it opened a pull request keeps its link (the document ties `prLink` to no status). */
  | { kind: 'archived'; prLink?: string }
  /** The service answered 404: the job is gone. */
  | { kind: 'gone' }
  /** Still active after the configured maximum age. */
  | { kind: 'expired' }
  /** No key for the job's project any more: disconnected in App Home, or taken out of the configuration. */
  | { kind: 'disconnected' };

/**
 * Decides, without I/O, whether a polled job has ended and how. `undefined` while it is still active, and for a
 * status the bot does not know (the documents allow any): only the statuses that mean an end end a round.
 * A follow-up that ends on the PR the thread already has is reported as an update of that PR.
 */
export function outcomeOf(job: AgentJob, record: Pick<JobRecord, 'prLink' | 'round'>): Outcome | undefined {
  switch (job.status) {
    case 'completed':
      if (!job.prLink) return { kind: 'no_changes' };
      return { kind: 'pull_request', prLink: job.prLink, updated: record.round > 0 && record.prLink === job.prLink };
    case 'failed':
      return { kind: 'failed' };
    case 'archived':
      return job.prLink ? { kind: 'archived', prLink: job.prLink } : { kind: 'archived' };
    default:
      return undefined;
  }
}

export type OutcomeKind = Outcome['kind'];

/** The marks on a person's follow-up (`handle-turn.ts`): ✅ handed over; ❔ its answer was lost, the agent may have it. */
export const FOLLOW_UP_MARKS = { accepted: 'white_check_mark', unknown: 'grey_question' } as const;

/**
 * Whether a round's outcome shows that the agent took its follow-up of unknown fate up: the job was seen running
 * again (`unsure` cleared), or it ended its own way, unlike the end the thread was told (a round that still showed
 * that end never concludes, `afterPoll`). Archived, gone, expired or disconnected without being seen running say
 * nothing of it.
 */
export function tookUp(record: Pick<JobRecord, 'unsure'>, outcome: Outcome): boolean {
  return record.unsure === undefined || AGENT_ENDS.has(outcome.kind);
}

const AGENT_ENDS: ReadonlySet<OutcomeKind> = new Set(['pull_request', 'no_changes', 'failed']);
