import { createHash, randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { Deps } from '../deps.js';
import { keys } from '../store/keys.js';
import { TASK_MAX_AGE_MS } from '../task.js';
import type { Evidence } from './evidence.js';

// One Draft a fix job per thing readers struggle with, per channel: a second click, a second person's form, a
// submission delivered twice is told where the job is instead of starting another. The form's submission claims
// the thing (across replicas); the start records the job's thread, or lets go when no job was started.

/** How long a draft's job is remembered: long enough for the ranges /insights shows (a job that ended frees it). */
const DRAFT_TTL_MS = 30 * 24 * 60 * 60_000;
/** A start that has recorded no thread by then never will (its task expires after `TASK_MAX_AGE_MS`). */
const STARTING_MAX_MS = TASK_MAX_AGE_MS + 5 * 60_000;

const DraftJobSchema = z.object({
  owner: z.string(),
  /** The job's project: the form's picker may choose another than the evidence's. */
  project: z.string(),
  userId: z.string(),
  atMs: z.number(),
  threadTs: z.string().optional(),
});
type DraftJob = z.infer<typeof DraftJobSchema>;

/** What a draft's thing has: a job starting or running (where), one that ended, or nothing. */
export type DraftState =
  | { state: 'starting'; userId: string }
  | { state: 'running' | 'ended'; userId: string; threadTs: string }
  | { state: 'free' };

/**
 * The thing a draft is about, whichever view, digest or unfurl made its button: its evidence (whose project names the
 * thing) in a channel, and `project`, the one its job runs on.
 */
export interface DraftSubject {
  project: string;
  channel: string;
  evidence: Evidence;
}

type ClaimDeps = Pick<Deps, 'store' | 'now'>;

function subjectKeys({ channel, evidence }: DraftSubject) {
  const { project } = evidence;
  const about =
    evidence.kind === 'page'
      ? evidence.path
      : evidence.kind === 'search'
        ? evidence.term
        : (evidence.topic ?? evidence.questions[0] ?? '');
  const subject = createHash('sha256').update(`${evidence.kind}\n${about.trim().toLowerCase()}`).digest('hex');
  return {
    claim: keys.insightsDraft(project, channel, subject.slice(0, 32)),
    job: keys.insightsDraftJob(project, channel, subject.slice(0, 32)),
  };
}

async function recordOf(deps: ClaimDeps, key: string): Promise<DraftJob | undefined> {
  const parsed = DraftJobSchema.safeParse(await deps.store.kv.get(key));
  return parsed.success ? parsed.data : undefined;
}

/** Where a draft's job is (a click asks before opening the form). Throws when the store does not answer. */
export async function draftState(deps: ClaimDeps, subject: DraftSubject): Promise<DraftState> {
  return stateOf(deps, subject, await recordOf(deps, subjectKeys(subject).job));
}

async function stateOf(deps: ClaimDeps, subject: DraftSubject, record: DraftJob | undefined): Promise<DraftState> {
  if (!record) return { state: 'free' };
  const { userId, threadTs } = record;
  if (!threadTs) return deps.now() - record.atMs < STARTING_MAX_MS ? { state: 'starting', userId } : { state: 'free' };
  const ref = await deps.store.jobs.forThread([record.project], subject.channel, threadTs);
  const job = ref && (await deps.store.jobs.get(ref));
  return { state: job && !job.ended ? 'running' : 'ended', userId, threadTs };
}

/**
 * Takes the thing for `userId`'s submission: its owner id, or where the job already is. A job that ended (or a start
 * that never recorded one) no longer holds it. The claim lasts as long as a start may take, and as long as its job is
 * remembered once recorded. Throws when the store does not answer.
 */
export async function claimDraft(
  deps: ClaimDeps,
  subject: DraftSubject,
  userId: string,
): Promise<{ ok: true; owner: string } | { ok: false; state: Exclude<DraftState, { state: 'free' | 'ended' }> }> {
  const key = subjectKeys(subject);
  const owner = randomUUID();
  const take = async () => {
    if (!(await deps.store.claims.claim(key.claim, owner, STARTING_MAX_MS))) return false;
    const job: DraftJob = { owner, project: subject.project, userId, atMs: deps.now() };
    // A claim without its record would say "someone is starting" to every retry until it lapses.
    await deps.store.kv.set(key.job, job, DRAFT_TTL_MS).catch(async (error: unknown) => {
      await deps.store.claims.release(key.claim, owner).catch(() => {});
      throw error;
    });
    return true;
  };
  if (await take()) return { ok: true, owner };
  const record = await recordOf(deps, key.job);
  // Claimed a moment ago, its record not written yet: that start is under way (a claim whose record was never
  // written lapses after STARTING_MAX_MS).
  if (!record) return { ok: false, state: { state: 'starting', userId: '' } };
  const state = await stateOf(deps, subject, record);
  if (state.state === 'starting' || state.state === 'running') return { ok: false, state };
  // The holder's job is over: let go of its claim (only that holder's), then take it as anyone else would.
  await deps.store.claims.release(key.claim, record.owner);
  return (await take()) ? { ok: true, owner } : { ok: false, state: { state: 'starting', userId: '' } };
}

/** The job started: its thread is where later clicks are sent. */
export async function recordDraftJob(
  deps: ClaimDeps,
  subject: DraftSubject,
  owner: string,
  threadTs: string,
): Promise<void> {
  const key = subjectKeys(subject);
  const record = await recordOf(deps, key.job);
  if (record?.owner !== owner) return;
  await deps.store.kv.set(key.job, { ...record, threadTs }, DRAFT_TTL_MS);
  await deps.store.claims.renew(key.claim, owner, DRAFT_TTL_MS);
}

/** No job was started: the thing is free to draft again. */
export async function releaseDraft(deps: ClaimDeps, subject: DraftSubject, owner: string): Promise<void> {
  const key = subjectKeys(subject);
  const record = await recordOf(deps, key.job);
  if (record?.owner === owner) await deps.store.kv.delete(key.job);
  await deps.store.claims.release(key.claim, owner);
}
