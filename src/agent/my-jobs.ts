import { type ProjectOrigin, projectOrigin } from '../config/projects.js';
import type { Deps } from '../deps.js';
import type { Message } from '../slack/message.js';
import { inlineCode, plainText, safeLink } from '../slack/mrkdwn.js';
import { awaitingTakeUp, type JobRecord } from '../store/jobs.js';
import { formatElapsed, jobStatus } from './job-messages.js';
import { errors, paneCopy } from './messages.js';

/** How many of a person's jobs `my jobs` lists, newest first, and how much of each prompt. */
export const MY_JOBS_LISTED = 10;
const PROMPT_CHARS = 150;

/** `my jobs` (the pane's suggested prompt): the person's newest jobs, as App Home lists them. */
export const MY_JOBS_WORDS = /^\s*my\s+jobs\s*[.?!]?\s*$/i;

/** Said beside a job's status (App Home, `my jobs`) while an unsure round waits for the agent to take it up. */
export const AWAITING_TAKE_UP = 'can’t tell yet whether the agent got the last follow-up';

/** The person's newest jobs, each with its state, project, age, pull request and prompt. */
export async function myJobs(
  deps: Pick<Deps, 'store' | 'log' | 'now' | 'config'>,
  userId: string,
  text: string,
): Promise<Message> {
  try {
    const refs = await deps.store.jobs.forUser(userId, MY_JOBS_LISTED);
    const records = await Promise.all(refs.map((ref) => deps.store.jobs.get(ref)));
    const mine = records.filter((record): record is JobRecord => record?.userId === userId);
    if (mine.length === 0) return { text: paneCopy.noJobs };
    const origin = projectOrigin(deps.config);
    return { text: [paneCopy.myJobs, ...mine.map((record) => jobLine(record, deps.now(), origin))].join('\n') };
  } catch (error) {
    deps.log.error('store.degraded', { op: 'agent.my_jobs', error });
    return errors.storeUnavailable(text);
  }
}

function jobLine(record: JobRecord, now: number, origin: ProjectOrigin): string {
  const { emoji, words } = jobStatus(record, origin);
  const pr = safeLink(record.prLink, 'Pull request');
  const facts = [
    `${emoji} *${words}*`,
    awaitingTakeUp(record) && AWAITING_TAKE_UP,
    inlineCode(record.project),
    `${formatElapsed(now - record.createdAtMs)} ago`,
    pr,
  ];
  return `${facts.filter(Boolean).join(' · ')}\n>${plainText(record.prompt, PROMPT_CHARS).replace(/\n/g, '\n>')}`;
}
