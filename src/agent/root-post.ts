import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { Deps } from '../deps.js';
import { classifySlackError, isNotInChannel } from '../slack/errors.js';
import type { Message } from '../slack/message.js';
import { findPosted } from '../slack/witness.js';
import { type PendingJob, rootMessage } from './job-messages.js';
import { startPlanCard } from './plan-stream.js';
import type { StartJobInput } from './start-job.js';

/** `metadata.event_type` of a root message, so a post whose answer was lost can be found again. */
const REQUEST_EVENT_TYPE = 'mintlify_agent_request';
/** A 429 on the root message is waited out, once, when Slack asks for at most this long. */
const ROOT_RETRY_MAX_WAIT_MS = 10_000;

export type RootPost = { ok: true; ts: string } | { ok: false; code: string; notInChannel: boolean };

/**
 * Posts a job's root message before the job exists ("Starting…"). A short 429 is waited out (Slack did nothing);
 * after a 5xx or a timeout the conversation is read for the message (Slack may have stored it), so there is never
 * a second one.
 */
export async function postRootMessage(
  deps: Pick<Deps, 'slack' | 'store' | 'log' | 'workspace' | 'config'>,
  input: StartJobInput & { showProject: boolean },
): Promise<RootPost> {
  const requestId = randomUUID();
  const where = { channel: input.channel, threadTs: input.threadTs };
  const pending = { ...input, contextNote: contextNoteOf(input) };
  const message = rootMessage(pending, { showProject: input.showProject });
  if (deps.config.planCard) {
    const card = await planCard(deps, where, pending, message);
    if (card) return card;
  }
  const args = {
    channel: input.channel,
    ...(input.threadTs && { thread_ts: input.threadTs }),
    ...message,
    metadata: { event_type: REQUEST_EVENT_TYPE, event_payload: { request_id: requestId } },
  };
  for (let attempt = 1; ; attempt++) {
    try {
      const posted = await deps.slack.chat.postMessage(args);
      return { ok: true, ts: posted.ts as string };
    } catch (error) {
      const failure = classifySlackError(error);
      if (failure.kind === 'rate_limited' && attempt === 1 && failure.retryAfterMs <= ROOT_RETRY_MAX_WAIT_MS) {
        await delay(failure.retryAfterMs);
        continue;
      }
      if (failure.kind === 'transient') {
        const found = await findPosted(deps.slack, where, REQUEST_EVENT_TYPE, (p) => p.request_id === requestId).catch(
          () => undefined,
        );
        if (found) return { ok: true, ts: found };
      }
      return { ok: false, code: failure.code, notInChannel: isNotInChannel(error) };
    }
  }
}

/**
 * The root as a streamed plan card; undefined when Slack refuses streaming here, or did nothing (a 429): the status
 * line is posted instead. After a 5xx or a timeout Slack may hold the stream, which cannot be looked for: the start
 * fails rather than risk a second root.
 */
async function planCard(
  deps: Pick<Deps, 'slack' | 'store' | 'log' | 'workspace'>,
  where: { channel: string; threadTs?: string | undefined },
  pending: PendingJob,
  message: Message,
): Promise<RootPost | undefined> {
  try {
    return { ok: true, ts: await startPlanCard(deps, where, pending, message) };
  } catch (error) {
    const failure = classifySlackError(error);
    if (failure.kind === 'transient') return { ok: false, code: failure.code, notInChannel: false };
    deps.log.info('agent.plan_card_refused', { channel: where.channel, slack_error: failure.code });
    return undefined;
  }
}

/** What the status line says about what came with the instruction: its files, the thread's context. */
export function contextNoteOf(input: Pick<StartJobInput, 'files' | 'context'>): string | undefined {
  return [input.files?.note, input.context?.note].filter(Boolean).join(' · ') || undefined;
}
