import type { ChatStartStreamResponse } from '@slack/web-api';
import type { Deps } from '../deps.js';
import { slackErrorCode } from '../slack/errors.js';
import type { Message } from '../slack/message.js';
import { lookUpPerson } from '../slack/people.js';
import { type JobRecord, RECORD_TTL_MS } from '../store/jobs.js';
import { keys } from '../store/keys.js';
import type { PendingJob, RootOptions } from './job-messages.js';
import { jobMetadata } from './job-metadata.js';
import { finalBlocks, PLAN_TITLE, planCardMessage, planTasks, taskChunks } from './plan-card.js';

// A job's root as a streamed plan card (`SLACK_PLAN_CARD`): started with chat.startStream in plan mode, its task
// updates appended as the job moves, stopped with its closing blocks at the end. Slack ends a stream whose appends
// stop for a while (`message_not_in_streaming_state`): the card is then rewritten with chat.update, as one message.

/** How a root message is written: `stream` while Slack streams it, `card` once it is rewritten whole. */
type CardMark = 'stream' | 'card';
const STREAM_GONE = new Set(['message_not_in_streaming_state']);

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
  const team = deps.workspace.teamId || (await lookUpPerson(deps, job.userId))?.teamId;
  const asked = root.blocks?.[0];
  const markdown = asked?.type === 'section' && asked.text ? asked.text.text : root.text;
  // The SDK's arguments require `thread_ts`; Slack streams a top-level message in a channel without it.
  const posted: ChatStartStreamResponse = await deps.slack.apiCall('chat.startStream', {
    channel: where.channel,
    ...(where.threadTs && { thread_ts: where.threadTs }),
    // Required in channels: the person the stream is for, and their team (a single-workspace deployment asks Slack).
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
  await mark(deps, where.channel, ts, 'stream');
  return ts;
}

async function mark(deps: Pick<Deps, 'store' | 'log'>, channel: string, ts: string, how: CardMark): Promise<void> {
  // A mark the store did not keep leaves the root rewritten as a status line: still right, only plainer.
  await deps.store.kv
    .set(keys.planCard(channel, ts), how, RECORD_TTL_MS)
    .catch((error) => deps.log.warn('store.unavailable', { op: 'agent.plan_card', error }));
}

/** How the job's root is written: as a plan card (`stream`, `card`), or undefined for the status line. */
export async function cardMarkOf(deps: Pick<Deps, 'store'>, record: JobRecord): Promise<CardMark | undefined> {
  const how = await deps.store.kv.get(keys.planCard(record.channel, record.statusTs));
  return how === 'stream' || how === 'card' ? how : undefined;
}

/**
 * Brings a plan card up to date: the tasks appended to its stream, and at the end the stream stopped with its
 * closing blocks (the PR button); once the stream is stopped or gone, the whole card rewritten with chat.update.
 * Throws Slack's other failures, for the caller's retries.
 */
export async function refreshPlanCard(
  deps: Pick<Deps, 'slack' | 'store' | 'log'>,
  record: JobRecord,
  how: CardMark,
  options: RootOptions & { now: number },
): Promise<void> {
  const at = { channel: record.channel, ts: record.statusTs };
  if (how === 'stream') {
    try {
      const chunks = taskChunks(planTasks(record, options.now));
      if (!record.ended) {
        await deps.slack.chat.appendStream({ ...at, chunks });
        return;
      }
      await deps.slack.chat.stopStream({
        ...at,
        chunks,
        blocks: finalBlocks(record, options),
        metadata: jobMetadata(record),
      });
      await mark(deps, at.channel, at.ts, 'card');
      return;
    } catch (error) {
      if (!STREAM_GONE.has(slackErrorCode(error))) throw error;
      deps.log.info('agent.plan_card_rewritten', { job_id: record.jobId, slack_error: slackErrorCode(error) });
      await mark(deps, at.channel, at.ts, 'card');
    }
  }
  await deps.slack.chat.update({ ...at, ...planCardMessage(record, options), metadata: jobMetadata(record) });
}
