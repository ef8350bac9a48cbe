import type { types } from '@slack/bolt';
import {
  AWAITING_TAKE_UP,
  type FeedbackCount,
  formatElapsed,
  HOURLY_LIMIT,
  jobStatus,
  OPEN_PR_ACTION,
  openPullRequest,
  pullRequestUrl,
} from '../agent/index.js';
import type { FollowUps } from '../config/config.js';
import type { ProjectOrigin } from '../config/projects.js';
import { SECTION_MAX_CHARS, section } from '../slack/message.js';
import { inlineCode, MAX_URL_CHARS, plainText, readerTime, safeLink } from '../slack/mrkdwn.js';
import type { BudgetUse } from '../store/budget.js';
import { awaitingTakeUp, type JobRecord } from '../store/jobs.js';

/** Jobs listed on the Home tab, newest first. */
export const HOME_JOBS = 10;
const PROMPT_CHARS = 300;

export interface HomeJob {
  record: JobRecord;
  /** Link to the job's status message in its thread, when Slack gave one. */
  threadLink?: string | undefined;
}

export interface ProjectQuota {
  project: string;
  create: BudgetUse;
  followUp: BudgetUse;
  /** The 👍 and 👎 on its jobs' outcomes over the last seven days; undefined when the store did not say. */
  feedback?: FeedbackCount | undefined;
}

/** How to start a job and steer it; `followUps` (`AGENT_FOLLOW_UPS`): what steers a job's thread. */
const howTo = (followUps: FollowUps) =>
  [
    '*How to start a job*',
    '• Mention me with an instruction: `@Mintlify Document the new retry policy`. In a thread, the thread is the brief.',
    '• Send me an instruction in my *Messages* tab.',
    '• On any message: *More actions → Ask the Mintlify agent*.',
    '• `/agent &lt;instruction&gt;` in a channel.',
    followUps === 'reply'
      ? "I answer in the message's thread: reply there to steer the agent (in a discussion I joined, mention me); the pull request lands there too."
      : "I answer in the message's thread: mention me there to steer the agent; the pull request lands there too.",
  ].join('\n');

export interface HomeOptions {
  now: number;
  followUps: FollowUps;
  /** Where the app's projects are set (`projectOrigin`), as a job's status says it. */
  origin: ProjectOrigin;
  /** Before the jobs: the workspace's Mintlify connection, when the app serves many workspaces. */
  top?: readonly types.KnownBlock[];
  /** The person's jobs the store did not read this time. */
  unread?: number;
}

/**
 * The Home tab of one person: their own jobs, the hourly quota per project, and how to start a job. A workspace with
 * no project yet (not connected) shows only its jobs after `top`.
 */
export function homeView(
  jobs: readonly HomeJob[],
  quotas: readonly ProjectQuota[],
  { now, followUps, origin, top = [], unread = 0 }: HomeOptions,
): types.HomeView {
  const blocks: types.KnownBlock[] = [
    ...top,
    { type: 'header', text: { type: 'plain_text', text: 'Your Mintlify agent jobs' } },
  ];
  if (unread > 0)
    blocks.push(
      section(
        `:warning: ${unread === 1 ? 'One of your jobs' : `${unread} of your jobs`} could not be read right now; they are back when you open Home again.`,
      ),
    );
  else if (jobs.length === 0) blocks.push(section('You have not started a job yet.'));
  for (const job of jobs) blocks.push(...jobBlocks(job, now, origin));
  if (quotas.length === 0) return { type: 'home', blocks };
  const hour = { type: 'header', text: { type: 'plain_text', text: 'This hour' } } as const;
  const week = { type: 'header', text: { type: 'plain_text', text: 'Feedback this week' } } as const;
  const end = [{ type: 'divider' }, section(howTo(followUps))] as const;
  // The two lists of projects share the blocks and the bytes left by the others (the 5 around them included).
  const rest = [...blocks, { type: 'divider' as const }, hour, week, ...end];
  const room = {
    sections: Math.max(1, Math.floor((VIEW_MAX_BLOCKS - rest.length) / 2)),
    bytes: Math.floor((VIEW_MAX_BYTES - jsonBytes({ type: 'home', blocks: rest })) / 2),
  };
  blocks.push(
    { type: 'divider' },
    hour,
    ...inSections(
      quotas.map((q) => quotaLine(q, now)),
      room,
    ),
    week,
    ...inSections(quotas.map(feedbackLine), room),
    ...end,
  );
  return { type: 'home', blocks };
}

/** Slack's limit on a view's blocks. */
const VIEW_MAX_BLOCKS = 100;
/**
 * Slack refuses a Home over 250 kB (`views.publish`: `view_too_large`), which a few thousand projects' lines reach
 * well within 100 blocks; kept 10,000 bytes under it, as Slack does not say how it counts.
 */
const VIEW_MAX_BYTES = 240_000;
const jsonBytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));
/** What a section adds to the view's JSON besides its text. */
const SECTION_BYTES = jsonBytes(section('')) + 1;
/** Room kept in a section for the line saying how many projects are left out. */
const MORE_CHARS = 100;

/**
 * Lines packed into as few sections as fit, at most `room.sections` of them taking at most `room.bytes` of the view's
 * JSON (the first line always); the lines past those are counted on a last line, with where they all are.
 */
function inSections(lines: readonly string[], room: { sections: number; bytes: number }): types.SectionBlock[] {
  const texts: string[] = [];
  let bytes = MORE_CHARS;
  let shown = 0;
  for (const line of lines) {
    const last = texts.at(-1);
    const joins = last !== undefined && last.length + 1 + line.length <= SECTION_MAX_CHARS - MORE_CHARS;
    // The line's JSON quotes count for the `\n` (escaped) that joins it.
    bytes += jsonBytes(line) + (joins ? 0 : SECTION_BYTES);
    if (shown > 0 && (bytes > room.bytes || (!joins && texts.length >= room.sections))) break;
    if (joins) texts[texts.length - 1] = `${last}\n${line}`;
    else texts.push(line);
    shown++;
  }
  const more = lines.length - shown;
  if (more > 0)
    texts[texts.length - 1] += `\nand ${more} more projects (${inlineCode('/agent projects')} lists them all)`;
  return texts.map(section);
}

function jobBlocks({ record, threadLink }: HomeJob, now: number, origin: ProjectOrigin): types.KnownBlock[] {
  const { emoji, words } = jobStatus(record, origin);
  const project = `project ${inlineCode(record.project)}`;
  const unsure = awaitingTakeUp(record) && AWAITING_TAKE_UP;
  const facts = [`${emoji} *${words}*`, unsure, project, `${formatElapsed(now - record.createdAtMs)} ago`];
  const text = [facts.filter(Boolean).join(' · '), `>${plainText(record.prompt, PROMPT_CHARS).replace(/\n/g, '\n>')}`];
  const thread = safeLink(threadLink, 'Open thread');
  if (thread) text.push(thread);
  const job: types.SectionBlock = { type: 'section', text: { type: 'mrkdwn', text: text.join('\n') } };
  const pr = pullRequestUrl(record.prLink);
  if (!pr) return [job];
  // A button, not a link in the text: a URL may take 3,000 characters, all a section's text may hold. Past a
  // button's 3,000, the rich text link under the job that the thread's outcome has too.
  if (pr.length > MAX_URL_CHARS) return [job, openPullRequest(pr)];
  const button = {
    type: 'button' as const,
    action_id: OPEN_PR_ACTION,
    text: { type: 'plain_text' as const, text: 'Pull request' },
    url: pr,
  };
  return [{ ...job, accessory: button }];
}

/** `proj · 👍 3 · 👎 1 · 75% positive`: the project's votes of the last seven days. */
function feedbackLine({ project, feedback }: ProjectQuota): string {
  if (!feedback) return `${inlineCode(project)} · feedback unavailable right now`;
  const { up, down } = feedback;
  if (up + down === 0) return `${inlineCode(project)} · no feedback yet (👍/👎 under a job's result)`;
  return `${inlineCode(project)} · 👍 ${up} · 👎 ${down} · ${Math.round((100 * up) / (up + down))}% positive`;
}

function quotaLine({ project, create, followUp }: ProjectQuota, now: number): string {
  const use = (label: string, u: BudgetUse) => `${label}: ${u.used} of ${HOURLY_LIMIT} used, ${u.left} left`;
  const resetMs = Math.max(create.resetInMs, followUp.resetInMs);
  const reset = resetMs > 0 ? ` · resets at ${readerTime(now + resetMs)}` : '';
  return `${inlineCode(project)} · ${use('new jobs', create)} · ${use('follow-ups', followUp)}${reset}`;
}
