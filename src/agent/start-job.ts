import type { Deps } from '../deps.js';
import { describeFailure, type FailedResult, logFailure, mayHaveRun } from '../mintlify/failure.js';
import { POST_RESTRICTED } from '../slack/errors.js';
import type { JobBinding, JobRecord, ThreadKind } from '../store/jobs.js';
import { persist } from '../store/retry.js';
import type { FileContext } from './file-context.js';
import { errors, interruptedRootStatus, unknownRootStatus, untrackedRootStatus } from './messages.js';
import { contextNoteOf, markRootUnknown, postRootMessage, withdrawRoot } from './root-post.js';
import { holdsSecret } from './secret-text.js';
import { earlierAttempt, recordAttempt } from './start-attempt.js';
import type { ThreadContext } from './thread-context.js';
import { observationOf } from './tracking/decide.js';
import { refreshNow } from './tracking/root-message.js';

/** One request to start a job, whichever door it came in by (`/agent`, a mention, a DM, the shortcut). */
export interface StartJobInput {
  project: string;
  userId: string;
  channel: string;
  /** Plain text for the agent (decoded at the door). */
  prompt: string;
  /** Start the job in this existing thread (a mention, a DM message, the shortcut); unset: a new message. */
  threadTs?: string | undefined;
  /** The thread's earlier messages, sent to the agent after the prompt and noted in the status line. */
  context?: ThreadContext | undefined;
  /** The files shared with the instruction, sent to the agent before the thread's context and noted likewise. */
  files?: FileContext | undefined;
  /** A discussion the job joins (a mention in a thread), where only mentions steer it; by default the bot's own. */
  thread?: ThreadKind | undefined;
  /** This start's own id, the same in a run that takes over a dead worker's (`start-attempt.ts`). */
  attempt?: string | undefined;
}

/** Why no job was started (or why it runs untracked), for the person who asked; `answers.ts` words each. */
export type StartRefusal =
  | { code: 'quota'; project: string; resetInMs: number }
  | { code: 'store_unavailable' }
  | { code: 'not_in_channel'; directMessage: boolean }
  | { code: 'slack_failed' }
  /** The channel's posting settings refuse the bot's post (`POST_RESTRICTED`): trying again will not help. */
  | { code: 'post_restricted'; slackError: string }
  | { code: 'service'; failed: FailedResult }
  /** The job runs, but its thread could not be bound: its result will not be posted there. */
  | { code: 'untracked' }
  /** An earlier run posted the root and died before binding a job, which may exist: nothing is created again. */
  | { code: 'interrupted' }
  /** The instruction holds what looks like a key or token (`secret-text.ts`): nothing was posted or sent. */
  | { code: 'secret' };

export type StartJobResult = { ok: true; record: JobRecord } | { ok: false; refusal: StartRefusal };

export type StartJobDeps = Pick<
  Deps,
  | 'log'
  | 'store'
  | 'quota'
  | 'projects'
  | 'slack'
  | 'mintlify'
  | 'metrics'
  | 'now'
  | 'tracker'
  | 'lanes'
  | 'jobWatchers'
  | 'workspace'
  | 'config'
>;

/**
 * Takes an hourly slot, posts the root message, creates the job, binds the thread and starts tracking.
 * The message goes out first so that no job ever runs without its thread; when the service refuses, it is
 * withdrawn. When the service does not answer, nobody can know whether the job exists, so the message stays with
 * "status unknown". Never answers the person itself: the result says what happened.
 */
export async function startJob(deps: StartJobDeps, input: StartJobInput): Promise<StartJobResult> {
  const { log, store, quota, projects } = deps;
  const { channel, project } = input;
  // The person's own words and files, as a follow-up's; the thread's earlier messages are other people's.
  if (holdsSecret(input.prompt) || holdsSecret(input.files?.text ?? '')) return refused({ code: 'secret' });
  try {
    const resumed = input.attempt && (await resumeEarlierStart(deps, input.attempt));
    if (resumed) return resumed;
    const slot = await quota.take(project, 'create');
    if (!slot.ok) return refused({ code: 'quota', project, resetInMs: slot.resetInMs });
  } catch (error) {
    log.error('store.unavailable', { op: 'agent.take_slot', project, error });
    return refused({ code: 'store_unavailable' });
  }
  const posted = await postRootMessage(deps, { ...input, showProject: projects.all.length > 1 });
  if (!posted.ok) {
    await refundCreate(deps, project);
    log.warn('slack.post_failed', { op: 'agent.root', channel, slack_error: posted.code });
    if (POST_RESTRICTED.has(posted.code)) return refused({ code: 'post_restricted', slackError: posted.code });
    if (!posted.notInChannel) return refused({ code: 'slack_failed' });
    // A direct message between people (D…) cannot be fixed with /invite.
    return refused({ code: 'not_in_channel', directMessage: channel.startsWith('D') });
  }
  const threadTs = input.threadTs ?? posted.ts;
  const contextNote = contextNoteOf(input);
  const { userId, prompt } = input;
  const attempt = {
    ...{ channel, ts: posted.ts, threadTs, ...(posted.card && { card: true }) },
    ...{ project, userId, prompt, ...(contextNote && { contextNote }) },
  };
  await Promise.all([
    input.attempt && recordAttempt(deps, input.attempt, attempt),
    // Until the job is bound, a reply in its thread is not yet a follow-up: mark the thread so it is answered.
    // the store guard counts the failure; without the mark a reply meanwhile is only not answered.
    store.jobs.markStarting(project, channel, threadTs, input.thread ?? 'own').catch(() => {}),
  ]);
  try {
    return await createAndBind(deps, input, posted, threadTs);
  } finally {
    // the store guard counts the failure; the mark lapses by its TTL.
    await store.jobs.clearStarting(project, channel, threadTs).catch(() => {});
  }
}

const refused = (refusal: StartRefusal): StartJobResult => ({ ok: false, refusal });

/** Gives back a creation slot that bought nothing (the service refused, or the root message failed). */
async function refundCreate({ quota, log }: StartJobDeps, project: string): Promise<void> {
  await quota.refund(project, 'create').catch((error) => log.warn('store.unavailable', { op: 'agent.refund', error }));
}

async function createAndBind(
  deps: StartJobDeps,
  input: StartJobInput,
  root: { ts: string; card?: true },
  threadTs: string,
): Promise<StartJobResult> {
  const { log, slack, mintlify, store } = deps;
  const statusTs = root.ts;
  const { prompt, channel, project } = input;
  const sent = [prompt, input.files?.text, input.context?.text].filter(Boolean).join('\n\n');
  const created = await mintlify.createJob(project, sent);
  if (!created.ok) return withdraw(deps, input, statusTs, created);
  const job = created.value;
  log.info('mintlify.create_job', { outcome: 'ok', project, job_id: job.id, channel });
  deps.metrics.jobStarted(project);

  const binding: JobBinding = {
    project,
    jobId: job.id,
    channel,
    threadTs,
    statusTs,
    userId: input.userId,
    prompt,
    createdAtMs: deps.now(),
    ...(contextNoteOf(input) && { contextNote: contextNoteOf(input) }),
    thread: input.thread ?? 'own',
    ...(root.card && { root: 'card' as const }),
  };
  const untracked = async (event: string, op: string, error: unknown) => {
    // The job runs; without its binding or its first poll the thread cannot be followed: say so where everyone sees it.
    log.error(event, { op, project, job_id: job.id, error });
    const note = errors.followUpUntracked(prompt).text;
    // the untracked job is logged above; the note is a courtesy Slack may refuse.
    await slack.chat.postMessage({ channel, thread_ts: threadTs, text: note }).catch(() => {});
    return refused({ code: 'untracked' });
  };
  let record: JobRecord;
  try {
    record = await persist(log, 'agent.bind', () => store.jobs.create(binding, observationOf(job), deps.now()));
  } catch (error) {
    const request = { ...input, showProject: deps.projects.all.length > 1 };
    await markRootUnknown(deps, request, statusTs, untrackedRootStatus(job.id), { card: root.card === true });
    return untracked('store.unavailable', 'agent.bind', error);
  }
  try {
    await deps.tracker.track(record);
  } catch (error) {
    await refreshNow(deps, record);
    return untracked('queue.unavailable', 'agent.track', error);
  }
  await refreshNow(deps, record);
  return { ok: true, record };
}

/**
 * Finishes a start whose earlier run died after posting its root, or undefined when no run of it posted one (throws
 * when the store does not answer): the job the store bound to that root is tracked (the refresh stops its stream);
 * without one, the root says the start was interrupted and may have created the job, and the result says so for
 * the person. Never a second root, never a second create. A start that is not run again (failed unrun, expired)
 * ends here too, so nobody is told nothing was done when it may have been.
 */
export async function resumeEarlierStart(deps: StartJobDeps, id: string): Promise<StartJobResult | undefined> {
  const earlier = await earlierAttempt(deps, id);
  if (!earlier) return undefined;
  const { project, channel, threadTs, ts, userId, prompt, contextNote } = earlier;
  const ref = await deps.store.jobs.forThread([project], channel, threadTs);
  const record = ref && (await deps.store.jobs.get(ref));
  if (record && record.statusTs === ts) {
    deps.log.warn('agent.start_resumed', { outcome: 'tracked', project, job_id: record.jobId });
    await deps.tracker.track(record);
    await refreshNow(deps, record);
    return { ok: true, record };
  }
  deps.log.warn('agent.start_resumed', { outcome: 'interrupted', project, channel });
  const request = { project, userId, prompt, contextNote, channel, showProject: deps.projects.all.length > 1 };
  await markRootUnknown(deps, request, ts, interruptedRootStatus, { card: earlier.card === true });
  return refused({ code: 'interrupted' });
}

/**
 * The service gave no job: when it may have created one anyway (a timeout, a 5xx), the root message stays and
 * says the status is unknown; when it refused, the root message is withdrawn and the slot given back (a 429
 * keeps it: the service counted it).
 */
async function withdraw(deps: StartJobDeps, input: StartJobInput, statusTs: string, failed: FailedResult) {
  const { log } = deps;
  const { channel, project } = input;
  const { failure } = failed;
  if (mayHaveRun(failure)) {
    log.error('mintlify.create_job', { outcome: 'unknown', project, channel, error: describeFailure(failed) });
    const root = { ...input, showProject: deps.projects.all.length > 1 };
    await markRootUnknown(deps, root, statusTs, unknownRootStatus(failure));
    return refused({ code: 'service', failed });
  }
  logFailure(log, 'mintlify.create_job', failed);
  await withdrawRoot(deps, channel, statusTs);
  if (failure.code !== 'rate_limited') await refundCreate(deps, project);
  return refused({ code: 'service', failed });
}
