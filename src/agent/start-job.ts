import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { Deps } from '../deps.js';
import {
  InvalidRequestError,
  isMintlifyError,
  NotFoundError,
  RateLimitedError,
  UnauthorizedError,
  UnavailableError,
} from '../mintlify/errors.js';
import { classifySlackError, isNotInChannel, slackErrorCode } from '../slack/errors.js';
import { findPosted } from '../slack/witness.js';
import type { JobBinding, JobRecord } from '../store/jobs.js';
import { persist } from '../store/retry.js';
import type { AgentContext } from './context.js';
import { errors, type Message, rootMessage } from './messages.js';
import type { QuotaKind } from './quota.js';
import { refreshRootMessage } from './root-message.js';
import type { ThreadContext } from './thread-context.js';

/** One request to start a job, whichever way it came in (`/agent`, a mention, a DM, the shortcut). */
export interface StartJobInput {
  project: string;
  userId: string;
  channelId: string;
  /** Plain text for the agent (already decoded from Slack's wire format). */
  prompt: string;
  /** Start the job in this existing thread (a mention, a DM message, the shortcut); unset: a new message. */
  threadTs?: string;
  /** The thread's earlier messages, sent to the agent after the prompt and noted in the status line. */
  context?: ThreadContext | undefined;
}

export type StartJobResult = { ok: true; record: JobRecord } | { ok: false; reply: Message };

/**
 * Takes an hourly slot, posts the status message, creates the job, binds the thread and starts tracking.
 * The message goes out first so that no job ever runs without its thread; when the service refuses, it is
 * withdrawn and the user gets the reason privately. When the service does not answer, nobody can know whether
 * the job exists, so the message stays with "status unknown".
 */
export async function startJob(deps: AgentContext, input: StartJobInput): Promise<StartJobResult> {
  const { log, store, quota, projects } = deps;
  const { prompt, channelId, project } = input;

  try {
    const slot = await quota.take(project, 'create');
    if (!slot.ok) return { ok: false, reply: errors.createLimit(project, prompt, slot.resetInMs, deps.now()) };
  } catch (error) {
    log.error('store.unavailable', { op: 'agent.take_slot', project, error });
    return { ok: false, reply: errors.storeUnavailable(prompt) };
  }
  const posted = await postStatusMessage(deps, input, projects.all.length > 1);
  if (!posted.ok) {
    const { error } = posted;
    await refundCreate(deps, project);
    log.warn('slack.post_failed', { op: 'agent.root', channel: channelId, slack_error: slackErrorCode(error) });
    if (!isNotInChannel(error)) return { ok: false, reply: errors.slackFailed(prompt) };
    // A direct message between people (D…) cannot be fixed with /invite.
    const isDm = channelId.startsWith('D');
    return { ok: false, reply: isDm ? errors.notInConversation(prompt) : errors.notInChannel(prompt) };
  }
  const statusTs = posted.ts;
  const threadTs = input.threadTs ?? statusTs;
  // Until the job is bound, a reply in its thread is not yet a follow-up: mark the thread so it is answered.
  const starting = startingKey(project, channelId, threadTs);
  await store.kv.set(starting, true, STARTING_TTL_MS).catch(() => {});
  try {
    return await createAndBind(deps, input, statusTs, threadTs);
  } finally {
    await store.kv.delete(starting).catch(() => {});
  }
}

/** Gives back a creation slot that bought nothing (the service refused, or the status message failed). */
async function refundCreate({ quota, log }: AgentContext, project: string): Promise<void> {
  await quota.refund(project, 'create').catch((error) => log.warn('store.unavailable', { op: 'agent.refund', error }));
}

/** How long a thread counts as starting at most: longer than the service's create call can take. */
const STARTING_TTL_MS = 60_000;
const startingKey = (project: string, channel: string, threadTs: string) =>
  `starting:${project}:${channel}:${threadTs}`;

/** Whether a job of one of `projects` is being started in this thread right now. */
export async function isStarting(
  deps: Pick<AgentContext, 'store'>,
  projects: readonly string[],
  channel: string,
  threadTs: string,
): Promise<boolean> {
  const marks = await Promise.all(projects.map((p) => deps.store.kv.get(startingKey(p, channel, threadTs))));
  return marks.some(Boolean);
}

async function createAndBind(
  deps: AgentContext,
  input: StartJobInput,
  statusTs: string,
  threadTs: string,
): Promise<StartJobResult> {
  const { log, slack, mintlify, store, poller, projects } = deps;
  const { prompt, channelId, project } = input;
  const showProject = projects.all.length > 1;

  let job: Awaited<ReturnType<typeof mintlify.createJob>>;
  try {
    job = await mintlify.createJob(project, input.context ? `${prompt}\n\n${input.context.text}` : prompt);
    log.info('mintlify.create_job', { outcome: 'ok', project, job_id: job.id, channel: channelId });
    deps.metrics.jobStarted(project);
  } catch (error) {
    if (error instanceof UnavailableError && error.ambiguous) {
      log.error('mintlify.create_job', { outcome: 'unknown', project, channel: channelId, error });
      await slack.chat
        .update({ channel: channelId, ts: statusTs, ...rootMessage(pending(input), { showProject, unknown: true }) })
        .catch((e) => log.warn('slack.update_failed', { op: 'agent.root', slack_error: slackErrorCode(e) }));
      return { ok: false, reply: errors.maybeStarted(prompt) };
    }
    await slack.chat
      .delete({ channel: channelId, ts: statusTs })
      .catch((e) => log.warn('slack.delete_failed', { channel: channelId, slack_error: slackErrorCode(e) }));
    if (!(error instanceof RateLimitedError)) await refundCreate(deps, project);
    return { ok: false, reply: replyForServiceError(deps, error, prompt, 'create') };
  }

  const binding: JobBinding = {
    project,
    jobId: job.id,
    channel: channelId,
    threadTs,
    statusTs,
    userId: input.userId,
    prompt,
    createdAtMs: deps.now(),
    ...(input.context && { contextNote: input.context.note }),
  };
  let record: JobRecord;
  try {
    const observed = { status: job.status, repository: job.source?.repository, ref: job.source?.ref, model: job.model };
    record = await persist(log, 'agent.bind', () => store.jobs.create(binding, observed, deps.now()));
  } catch (error) {
    // The job runs; without its binding the thread cannot be tracked, so say so where everyone sees it.
    log.error('store.unavailable', { op: 'agent.bind', project, job_id: job.id, error });
    await slack.chat
      .postMessage({ channel: channelId, thread_ts: binding.threadTs, text: errors.followUpUntracked(prompt).text })
      .catch(() => {});
    return { ok: false, reply: errors.storeUnavailable(prompt) };
  }
  poller.track(record);
  await refreshRootMessage(deps, record);
  return { ok: true, record };
}

/** `metadata.event_type` of a status message, so a post whose answer was lost can be found again. */
const REQUEST_EVENT_TYPE = 'mintlify_agent_request';
/** A 429 on the status message is waited out, once, when Slack asks for at most this long. */
const STATUS_RETRY_MAX_WAIT_MS = 10_000;

/**
 * Posts the job's status message. A short 429 is waited out (Slack did nothing); after a 5xx or a timeout the
 * conversation is read for the message (Slack may have stored it), so there is never a second one.
 */
async function postStatusMessage(
  deps: Deps,
  input: StartJobInput,
  showProject: boolean,
): Promise<{ ok: true; ts: string } | { ok: false; error: unknown }> {
  const requestId = randomUUID();
  const where = { channel: input.channelId, threadTs: input.threadTs };
  const args = {
    channel: input.channelId,
    ...(input.threadTs && { thread_ts: input.threadTs }),
    ...rootMessage(pending(input), { showProject }),
    metadata: { event_type: REQUEST_EVENT_TYPE, event_payload: { request_id: requestId } },
  };
  for (let attempt = 1; ; attempt++) {
    try {
      const posted = await deps.slack.chat.postMessage(args);
      return { ok: true, ts: posted.ts as string };
    } catch (error) {
      const failure = classifySlackError(error);
      if (failure.kind === 'rate_limited' && attempt === 1 && failure.retryAfterMs <= STATUS_RETRY_MAX_WAIT_MS) {
        await delay(failure.retryAfterMs);
        continue;
      }
      if (failure.kind === 'transient') {
        const found = await findPosted(deps.slack, where, REQUEST_EVENT_TYPE, (p) => p.request_id === requestId).catch(
          () => undefined,
        );
        if (found) return { ok: true, ts: found };
      }
      return { ok: false, error };
    }
  }
}

const pending = (input: StartJobInput) => ({ ...input, contextNote: input.context?.note });

/** Maps a service failure to what the user reads, logging it for the admin; every reply echoes the prompt. */
export function replyForServiceError(deps: Deps, error: unknown, prompt: string, op: QuotaKind): Message {
  const event = op === 'create' ? 'mintlify.create_job' : 'mintlify.follow_up';
  const project = isMintlifyError(error) ? error.project : undefined;
  const fields = { outcome: isMintlifyError(error) ? error.code : 'error', project, error };
  if (error instanceof RateLimitedError) {
    deps.log.warn(event, fields);
    const limit = op === 'create' ? errors.createLimit : errors.followUpLimit;
    return limit(error.project, prompt, error.retryAfterMs, deps.now());
  }
  if (error instanceof UnauthorizedError) {
    deps.log.error(event, { ...fields, hint: `check MINTLIFY_API_KEY, the admin key of project ${error.project}` });
    return errors.misconfigured(error.project, prompt);
  }
  if (error instanceof InvalidRequestError) {
    deps.log.warn(event, fields);
    return errors.invalid(prompt, error.serviceMessage);
  }
  if (error instanceof NotFoundError) {
    deps.log.warn(event, fields);
    return errors.jobGone(prompt);
  }
  deps.log.error(event, fields);
  if (!(error instanceof UnavailableError && error.ambiguous)) return errors.unavailable(prompt);
  return op === 'create' ? errors.maybeStarted(prompt) : errors.maybeDelivered(prompt);
}
