import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { projectOrigin } from '../config/projects.js';
import type { Deps } from '../deps.js';
import { classifySlackError, isNotInChannel, slackErrorCode } from '../slack/errors.js';
import type { Message } from '../slack/message.js';
import { findPosted } from '../slack/witness.js';
import type { JobRecord } from '../store/jobs.js';
import type { FileContext } from './file-context.js';
import { type PendingJob, rootMessage } from './job-messages.js';
import { jobMetadata } from './job-metadata.js';
import { refreshPlanCard, rewriteStopped, startPlanCard, stopStreaming } from './plan-stream.js';
import { steerOf } from './steering.js';
import type { ThreadContext } from './thread-context.js';

// A job's root message in Slack, every write to it: posted before the job exists, rewritten from the record as the
// job goes, left saying "status unknown" or withdrawn when the service gives no job. What it says is in
// `job-messages.ts` (the status line) and `plan-card.ts` (the plan card); when it is rewritten, in
// `tracking/root-message.ts`.

/** `metadata.event_type` of a root message, so a post whose answer was lost can be found again. */
const REQUEST_EVENT_TYPE = 'mintlify_agent_request';
/** A 429 on the root message is waited out, once, when Slack asks for at most this long. */
const ROOT_RETRY_MAX_WAIT_MS = 10_000;

/** What a root message shows of a request to start a job (`StartJobInput`), and where it goes. */
export type RootRequest = PendingJob & {
  channel: string;
  /** Post in this thread; unset: a new message. */
  threadTs?: string | undefined;
  files?: Pick<FileContext, 'note'> | undefined;
  context?: Pick<ThreadContext, 'note'> | undefined;
  showProject: boolean;
};

/** The posted root (`card`: a plan card, streamed until the job exists), or why there is none. */
export type RootPost = { ok: true; ts: string; card?: true } | { ok: false; code: string; notInChannel: boolean };

/**
 * Posts a job's root message before the job exists ("Starting…"). A short 429 is waited out (Slack did nothing);
 * after a 5xx or a timeout the conversation is read for the message (Slack may have stored it), so there is never
 * a second one: only what came since the first attempt, one page even in a long thread.
 */
export async function postRootMessage(
  deps: Pick<Deps, 'slack' | 'store' | 'log' | 'workspace' | 'config'>,
  input: RootRequest,
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
  // Slack's clock is the wall clock (its `ts`), whatever clock the app's decisions run on.
  const since = Date.now();
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
        const ours = (p: Record<string, unknown>) => p.request_id === requestId;
        const lookIn = { ...where, since };
        const found = await findPosted(deps.slack, lookIn, REQUEST_EVENT_TYPE, ours).catch(() => undefined);
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
    return { ok: true, ts: await startPlanCard(deps, where, pending, message), card: true };
  } catch (error) {
    const failure = classifySlackError(error);
    if (failure.kind === 'transient') return { ok: false, code: failure.code, notInChannel: false };
    deps.log.info('agent.plan_card_refused', { channel: where.channel, slack_error: failure.code });
    return undefined;
  }
}

/**
 * Rewrites the root from the stored record: its status line, or its plan card (`plan-stream.ts`) when it was started
 * as one (the record's `root`, which its metadata keeps too). Slack's failures are thrown, for the caller's retries.
 */
export async function rewriteRoot(
  deps: Pick<Deps, 'slack' | 'store' | 'log' | 'now' | 'projects' | 'config'>,
  record: JobRecord,
): Promise<void> {
  const steer = steerOf(record, deps.config.followUps);
  const origin = projectOrigin(deps.config);
  const options = { now: deps.now(), showProject: deps.projects.all.length > 1, steer, origin };
  if (record.root === 'card') return refreshPlanCard(deps, record, options);
  const message = rootMessage(record, options);
  // The metadata carries the job, so a thread whose record the store lost can be bound again from it.
  const metadata = jobMetadata(record);
  await deps.slack.chat.update({ channel: record.channel, ts: record.statusTs, ...message, metadata });
}

/** The service may have created the job, or not: the root stays and says so (`status`, `unknownRootStatus`). */
export async function markRootUnknown(
  deps: Pick<Deps, 'slack' | 'store' | 'log'>,
  input: RootRequest,
  statusTs: string,
  status: string,
  { card = false } = {},
): Promise<void> {
  const pending = { ...input, contextNote: contextNoteOf(input) ?? input.contextNote };
  const message = rootMessage(pending, { showProject: input.showProject, unknown: status });
  // A plan card still streaming is finished first: Slack refuses an update while it streams (streaming_state_conflict).
  await stopStreaming(deps, input.channel, statusTs, { card });
  await rewriteStopped(deps, { channel: input.channel, ts: statusTs, ...message }).catch((e) =>
    deps.log.warn('slack.update_failed', { op: 'agent.root', slack_error: slackErrorCode(e) }),
  );
}

/** The service refused the job: its root goes. */
export async function withdrawRoot(deps: Pick<Deps, 'slack' | 'log'>, channel: string, statusTs: string) {
  await deps.slack.chat
    .delete({ channel, ts: statusTs })
    .catch((e) => deps.log.warn('slack.delete_failed', { channel, slack_error: slackErrorCode(e) }));
}

/** What the status line says about what came with the instruction: its files, the thread's context. */
export function contextNoteOf(input: Pick<RootRequest, 'files' | 'context'>): string | undefined {
  return [input.files?.note, input.context?.note].filter(Boolean).join(' · ') || undefined;
}
