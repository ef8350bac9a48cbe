import type { types } from '@slack/bolt';
import type { ProjectOrigin } from '../config/projects.js';
import { isKnownStatus } from '../mintlify/schemas.js';
import type { MessageBlock } from '../slack/data-blocks.js';
import type { Message } from '../slack/message.js';
import { plainLabel } from '../slack/mrkdwn.js';
import { type EndedKind, type JobRecord, shownEnd } from '../store/jobs.js';
import {
  formatElapsed,
  jobStatus,
  openPullRequest,
  type PendingJob,
  pullRequestUrl,
  type RootOptions,
  rootMessage,
  SHOWN_CHARS,
  type Steer,
  sourceOf,
  steerVerb,
} from './job-messages.js';
import { unserved } from './unserved.js';

// The plan card: a job's root as Slack's agent blocks show it, its phases as tasks (docs/agent.md, "The plan card").
// The same tasks go out as a stream's `task_update` chunks and, when the stream is gone, as a `plan` block.

export type TaskStatus = 'pending' | 'in_progress' | 'complete' | 'error';
export interface PlanTask {
  id: string;
  title: string;
  status: TaskStatus;
  details?: string;
}

export const PLAN_TITLE = 'Mintlify agent job';
/** The ends that finish the work (the others stopped it). */
const FINISHED: ReadonlySet<EndedKind> = new Set(['pull_request', 'no_changes']);
/**
 * Why a round ended without finishing, said under its task; `how`: "reply" or "mention me" (`steerVerb`); `origin`:
 * where the app's projects are set (`projectOrigin`).
 */
const WHY: Partial<Record<EndedKind, (how: string, origin: ProjectOrigin) => string>> = {
  failed: (how) => `The agent job failed: ${how} in the thread with more detail to try again.`,
  archived: () => 'The job was archived: it will not make further changes.',
  gone: () => 'The job no longer exists on Mintlify.',
  expired: () => 'No result in time: check the Mintlify dashboard.',
  disconnected: (how, origin) =>
    `This project ${unserved(origin).gone}: once it is ${unserved(origin).back}, ${how} in the thread to pick it up again.`,
  untracked: () => 'The result could not be posted in the thread.',
  stopped: (how) => `Checking on the job kept failing: ${how} in the thread to pick it up again.`,
  halted: (how) => `Stopped from Slack: ${how} in the thread to give the agent new instructions.`,
};

function createdTask(record: JobRecord | undefined): PlanTask {
  if (!record) return { id: 'created', title: 'Creating the job', status: 'in_progress' };
  const source = sourceOf(record);
  const where = source ? ` on ${plainLabel(source, SHOWN_CHARS.source)}` : '';
  const model = record.model ? ` with ${plainLabel(record.model, SHOWN_CHARS.model)}` : '';
  return { id: 'created', title: `Created${where}${model}`, status: 'complete' };
}

function workingTask(record: JobRecord | undefined, now: number, steer: Steer, origin: ProjectOrigin): PlanTask {
  if (!record) return { id: 'working', title: 'Agent working', status: 'pending' };
  const ended = shownEnd(record);
  if (!ended) {
    const title = `Agent working · ${formatElapsed(now - record.roundStartedAtMs)} elapsed`;
    const said = isKnownStatus(record.status)
      ? undefined
      : `Mintlify says ${plainLabel(record.status, SHOWN_CHARS.status)}`;
    return { id: 'working', title, status: 'in_progress', ...(said && { details: said }) };
  }
  if (FINISHED.has(ended)) return { id: 'working', title: 'Agent finished', status: 'complete' };
  const why = WHY[ended]?.(steerVerb(steer).toLowerCase(), origin);
  return {
    id: 'working',
    title: jobStatus({ ...record, stoppedBy: undefined }, origin).words,
    status: 'error',
    ...(why && { details: why }),
  };
}

function resultTask(record: JobRecord | undefined): PlanTask | undefined {
  const ended = record && shownEnd(record);
  if (!ended) return { id: 'result', title: 'Pull request', status: 'pending' };
  if (ended === 'no_changes') return { id: 'result', title: 'Finished without changes', status: 'complete' };
  if (ended !== 'pull_request') return undefined;
  return { id: 'result', title: record.round > 0 ? 'Pull request updated' : 'Pull request opened', status: 'complete' };
}

/**
 * The job's phases, oldest first: created, the follow-up applied (a later round), the agent's work, its result.
 * `steer`: how its thread is steered, as an ended round's note says it (`steerOf`); `origin`: where the app's
 * projects are set (`projectOrigin`).
 */
export function planTasks(
  job: PendingJob | JobRecord,
  now: number,
  steer: Steer = 'reply',
  origin: ProjectOrigin = 'connected',
): PlanTask[] {
  const record = 'jobId' in job ? job : undefined;
  const followUp: PlanTask[] = record?.round
    ? [{ id: 'follow_up', title: 'Follow-up applied', status: 'complete' }]
    : [];
  const result = resultTask(record);
  return [createdTask(record), ...followUp, workingTask(record, now, steer, origin), ...(result ? [result] : [])];
}

export const taskChunks = (tasks: PlanTask[]) => tasks.map((t) => ({ type: 'task_update' as const, ...t }));

/** What closes the card: the pull request's button when there is one, and what a reply does. */
export function finalBlocks(record: JobRecord, options: RootOptions): MessageBlock[] {
  const url = shownEnd(record) === 'pull_request' ? pullRequestUrl(record.prLink) : undefined;
  const button: MessageBlock[] = url ? [openPullRequest(url)] : [];
  // The status line's root: who asked, its status line, then its hint (when there is one).
  const [, , ...hint] = rootMessage(record, options).blocks ?? [];
  return [...button, ...hint];
}

/** The card as one message (`chat.update`, when the stream is gone): who asked, the plan, its closing blocks. */
export function planCardMessage(record: JobRecord, options: RootOptions & { now: number }): Message {
  const root = rootMessage(record, options);
  const cards = planTasks(record, options.now, options.steer, options.origin).map(({ id, details, ...task }) => ({
    type: 'task_card' as const,
    task_id: id,
    ...task,
    ...(details && { details: richText(details) }),
  }));
  const plan: types.KnownBlock = { type: 'plan', title: PLAN_TITLE, tasks: cards };
  const asked = root.blocks?.[0];
  return {
    text: root.text,
    blocks: [...(asked ? [asked] : []), plan, ...finalBlocks(record, options)],
  };
}

const richText = (text: string): types.RichTextBlock => ({
  type: 'rich_text',
  elements: [{ type: 'rich_text_section', elements: [{ type: 'text', text }] }],
});
