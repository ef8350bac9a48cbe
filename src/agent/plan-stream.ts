import type { ChatStartStreamResponse, ChatUpdateArguments } from '@slack/web-api';
import type { Deps } from '../deps.js';
import { classifySlackError, slackErrorCode } from '../slack/errors.js';
import type { Message } from '../slack/message.js';
import { mrkdwnAsMarkdown } from '../slack/mrkdwn.js';
import { lookUpPerson } from '../slack/people.js';
import type { JobRecord } from '../store/jobs.js';
import { keys } from '../store/keys.js';
import type { PendingJob, RootOptions } from './job-messages.js';
import { jobMetadata } from './job-metadata.js';
import { finalBlocks, PLAN_TITLE, planCardMessage, planTasks, taskChunks } from './plan-card.js';
import { sessionStatusOf } from './session/status.js';

// A job's root as a plan card (docs/agent.md, "The plan card"): streamed with chat.startStream in plan mode while the
// job is created, then stopped as soon as the job exists, with the job's metadata (chat.stopStream takes `metadata`;
// a message still streaming carries none, and healing and re-adoption read the job from it) and the session status
// the job's thread shows (stopStream sets it, `active` unless told). From then on every phase rewrites the same message
// with chat.update, metadata included, which also outlives Slack's expiry of streams (`message_not_in_streaming_state`);
// Slack refuses that update while the message still streams (`streaming_state_conflict`).

const STREAM_GONE = new Set(['message_not_in_streaming_state']);
/** A stream is stopped within seconds of its start (the job created, or not); its mark outlives that by far. */
const STREAM_MARK_TTL_MS = 24 * 60 * 60_000;

type StartDeps = Pick<Deps, 'slack' | 'store' | 'log' | 'workspace'>;

/**
 * Starts a root plan card for `job` by `userId` in `channel` (a top-level message unless `threadTs`): the ts, or
 * the error Slack answered (the caller falls back to today's status line on a refusal).
 */
export async function startPlanCard(
  deps: StartDeps,
  where: { channel: string; threadTs?: string | undefined },
  job: PendingJob,
  root: Message,
): Promise<string> {
  // The team the person belongs to: in Slack Connect another organisation's (users.info, cached for a day).
  const team = (await lookUpPerson(deps, job.userId))?.teamId || deps.workspace.teamId;
  const asked = root.blocks?.[0];
  // The root's first block is mrkdwn; a stream's text is Markdown, where what the person typed must stay text.
  const markdown = mrkdwnAsMarkdown(asked?.type === 'section' && asked.text ? asked.text.text : root.text);
  // The SDK's arguments require `thread_ts`; Slack streams a top-level message in a channel without it.
  const posted: ChatStartStreamResponse = await deps.slack.apiCall('chat.startStream', {
    channel: where.channel,
    ...(where.threadTs && { thread_ts: where.threadTs }),
    // Required in channels: the person the stream is for, and their team.
    recipient_user_id: job.userId,
    ...(team && { recipient_team_id: team }),
    task_display_mode: 'plan',
    chunks: [
      { type: 'markdown_text', text: `${markdown}\n` },
      { type: 'plan_update', title: PLAN_TITLE },
      ...taskChunks(planTasks(job, Date.now())),
    ],
  });
  const ts = String(posted.ts);
  await mark(deps, where.channel, ts);
  return ts;
}

/** A root is marked in the store from its start until its stream is stopped (or found expired). */
async function mark(deps: Pick<Deps, 'store' | 'log'>, channel: string, ts: string): Promise<void> {
  // A mark the store did not keep: the first refresh's chat.update is refused while it streams (`rewriteStopped`).
  await deps.store.kv
    .set(keys.planCard(channel, ts), 'stream', STREAM_MARK_TTL_MS)
    .catch((error) => deps.log.warn('store.unavailable', { op: 'agent.plan_card', error }));
}

async function unmark(deps: Pick<Deps, 'store' | 'log'>, channel: string, ts: string): Promise<void> {
  // A mark the store did not drop costs one refused stopStream (`message_not_in_streaming_state`) before the update.
  await deps.store.kv
    .delete(keys.planCard(channel, ts))
    .catch((error) => deps.log.warn('store.unavailable', { op: 'agent.plan_card', error }));
}

const streaming = async (deps: Pick<Deps, 'store'>, channel: string, ts: string) =>
  (await deps.store.kv.get(keys.planCard(channel, ts))) === 'stream';

/**
 * Finishes a root still streaming when no job came of it (its status is unknown): the caller rewrites it then. Slack's
 * refusals are logged; the stream expires anyway.
 */
export async function stopStreaming(
  deps: Pick<Deps, 'slack' | 'store' | 'log'>,
  channel: string,
  ts: string,
  { card = false } = {},
) {
  // `card`: the caller posted it as a stream just now, so it need not ask the store (which may be what failed).
  if (!card && !(await streaming(deps, channel, ts).catch(() => false))) return;
  await deps.slack.chat
    .stopStream({ channel, ts })
    .catch((e) => deps.log.warn('slack.update_failed', { op: 'agent.plan_card', slack_error: slackErrorCode(e) }));
  await unmark(deps, channel, ts);
}

/**
 * Brings a plan card up to date: while it still streams, the stream stopped with the job's tasks, metadata and
 * session status (and its closing blocks); otherwise the whole card rewritten with chat.update. A stream Slack expired
 * meanwhile is rewritten likewise, and so is one whose stop Slack refused for what it carried (ended bare first).
 * Throws Slack's other failures, for the caller's retries (a 429 waits, then tries the stop again).
 */
export async function refreshPlanCard(
  deps: Pick<Deps, 'slack' | 'store' | 'log'>,
  record: JobRecord,
  options: RootOptions & { now: number },
): Promise<void> {
  const at = { channel: record.channel, ts: record.statusTs };
  if (await streaming(deps, at.channel, at.ts)) {
    try {
      await deps.slack.chat.stopStream({
        ...at,
        chunks: taskChunks(planTasks(record, options.now, options.steer, options.origin)),
        blocks: finalBlocks(record, options),
        metadata: jobMetadata(record),
        session_status: sessionStatusOf(record),
      });
      await unmark(deps, at.channel, at.ts);
      return;
    } catch (error) {
      const code = slackErrorCode(error);
      if (!STREAM_GONE.has(code)) {
        // Slack refused what the stop carried (its tasks, blocks, metadata): ended bare, the card is rewritten below.
        if (classifySlackError(error).kind !== 'final') throw error;
        deps.log.warn('agent.plan_card_stop_refused', { job_id: record.jobId, slack_error: code });
        await deps.slack.chat.stopStream(at);
      }
      deps.log.info('agent.plan_card_rewritten', { job_id: record.jobId, slack_error: code });
      await unmark(deps, at.channel, at.ts);
    }
  }
  await rewriteStopped(deps, { ...at, ...planCardMessage(record, options), metadata: jobMetadata(record) });
}

/**
 * chat.update of a root, which Slack refuses while the message still streams (`streaming_state_conflict`): a stream
 * whose mark the store did not keep is stopped bare first, then rewritten. Throws Slack's other failures.
 */
export async function rewriteStopped(
  deps: Pick<Deps, 'slack' | 'log'>,
  update: ChatUpdateArguments & { channel: string; ts: string },
): Promise<void> {
  try {
    await deps.slack.chat.update(update);
  } catch (error) {
    if (slackErrorCode(error) !== 'streaming_state_conflict') throw error;
    deps.log.info('agent.plan_card_stopped_late', { channel: update.channel, ts: update.ts });
    await deps.slack.chat.stopStream({ channel: update.channel, ts: update.ts });
    await deps.slack.chat.update(update);
  }
}
