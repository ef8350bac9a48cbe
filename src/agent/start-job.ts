import type { Deps } from '../deps.js';
import {
  InvalidRequestError,
  isMintlifyError,
  NotFoundError,
  RateLimitedError,
  UnauthorizedError,
} from '../mintlify/errors.js';
import { isNotInChannel, slackErrorCode } from '../slack/errors.js';
import type { JobRecord } from './bindings.js';
import type { AgentContext } from './context.js';
import { type LimitKind, takeSlot } from './limits.js';
import { errors, type Message, rootMessage } from './messages.js';
import { refreshRootMessage } from './root-message.js';

export interface StartJobInput {
  userId: string;
  channelId: string;
  prompt: string;
}

export type StartJobResult = { ok: true; record: JobRecord } | { ok: false; reply: Message };

/**
 * `/agent <prompt>`: takes an hourly slot, posts the root message, creates the job, binds the thread
 * and starts tracking. The root message goes out first so that no job ever runs without its thread;
 * when the service refuses, that message is withdrawn and the user gets the reason privately.
 */
export async function startJob(deps: AgentContext, input: StartJobInput): Promise<StartJobResult> {
  const { log, slack, mintlify, store, config, bindings, poller } = deps;
  const { prompt, channelId } = input;

  try {
    const slot = await takeSlot(store.claims, config.mintlify.projectId, 'create');
    if (!slot.ok) return { ok: false, reply: errors.createLimit(prompt, slot.retryAfterMs, deps.now()) };
  } catch (error) {
    log.error('store.unavailable', { op: 'agent.take_slot', error });
    return { ok: false, reply: errors.storeUnavailable(prompt) };
  }

  let rootTs: string;
  try {
    const posted = await slack.chat.postMessage({ channel: channelId, ...rootMessage(input) });
    rootTs = posted.ts as string;
  } catch (error) {
    log.warn('slack.post_failed', { op: 'agent.root', channel: channelId, slack_error: slackErrorCode(error) });
    if (!isNotInChannel(error)) return { ok: false, reply: errors.slackFailed(prompt) };
    // A direct message between people (D…) cannot be fixed with /invite.
    const isDm = channelId.startsWith('D');
    return { ok: false, reply: isDm ? errors.notInConversation(prompt) : errors.notInChannel(prompt) };
  }

  let record: JobRecord;
  try {
    const job = await mintlify.createJob(prompt);
    const now = deps.now();
    record = {
      jobId: job.id,
      channel: channelId,
      threadTs: rootTs,
      userId: input.userId,
      prompt,
      status: job.status,
      repository: job.source?.repository ?? null,
      ref: job.source?.ref ?? null,
      model: job.model ?? null,
      prLink: job.prLink ?? null,
      round: 0,
      createdAtMs: now,
      roundStartedAtMs: now,
    };
    log.info('mintlify.create_job', { outcome: 'ok', job_id: job.id, channel: channelId });
  } catch (error) {
    await withdraw(deps, channelId, rootTs);
    return { ok: false, reply: replyForServiceError(deps, error, prompt, 'create') };
  }

  try {
    await bindings.bind(record);
  } catch (error) {
    // The job runs; without its binding the thread cannot be tracked, so say so where everyone sees it.
    log.error('store.unavailable', { op: 'agent.bind', job_id: record.jobId, error });
    await slack.chat
      .postMessage({ channel: channelId, thread_ts: rootTs, text: errors.storeUnavailable(prompt).text })
      .catch(() => {});
    return { ok: false, reply: errors.storeUnavailable(prompt) };
  }
  poller.track(record);
  await refreshRootMessage(deps, record);
  return { ok: true, record };
}

async function withdraw(deps: Deps, channel: string, ts: string): Promise<void> {
  await deps.slack.chat
    .delete({ channel, ts })
    .catch((error) => deps.log.warn('slack.delete_failed', { channel, slack_error: slackErrorCode(error) }));
}

/** Maps a service failure to what the user reads, logging it for the admin; every reply echoes the prompt. */
export function replyForServiceError(deps: Deps, error: unknown, prompt: string, op: LimitKind): Message {
  const event = op === 'create' ? 'mintlify.create_job' : 'mintlify.follow_up';
  const fields = { outcome: isMintlifyError(error) ? error.code : 'error', error };
  if (error instanceof RateLimitedError) {
    deps.log.warn(event, fields);
    const limit = op === 'create' ? errors.createLimit : errors.followUpLimit;
    return limit(prompt, error.retryAfterMs, deps.now());
  }
  if (error instanceof UnauthorizedError) {
    deps.log.error(event, { ...fields, hint: 'check MINTLIFY_API_KEY and MINTLIFY_PROJECT_ID' });
    return errors.misconfigured(prompt);
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
  return errors.unavailable(prompt);
}
