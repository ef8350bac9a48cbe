import type { types } from '@slack/bolt';
import { clipEscaped, escapeMrkdwn, plainText, quote, safeLink, safeUrl } from '../slack/mrkdwn.js';
import type { EndedKind, JobRecord } from '../store/jobs.js';
import type { Outcome } from './outcome.js';

/** A Slack message: Block Kit with the plain-text fallback Slack shows in notifications. */
export interface Message {
  text: string;
  blocks?: types.KnownBlock[];
}

const PROMPT_PREVIEW_CHARS = 600;
/** Notifications show only `text`: a status word and the start of the prompt. */
const FALLBACK_PROMPT_CHARS = 150;

export const USAGE = [
  '*Start a Mintlify agent job on the docs:* `/agent &lt;instruction&gt;`',
  'Examples:',
  '• `/agent Document the new rate-limit headers on the webhooks page`',
  '• `/agent Fix broken links in the quickstart`',
  'I post the job in this channel; reply in its thread to give the agent follow-up instructions.',
  'When the job ends I post the pull request (or say why there is none) in the thread.',
].join('\n');

const CONVERSATION_USAGE = [
  '*Ask the Mintlify agent to work on the docs* — any of these starts a job:',
  '• mention me with an instruction: `@Mintlify Document the new retry policy` (in a thread, the thread is the brief)',
  '• send me an instruction here in a direct message',
  '• on any message, *More actions → Ask the Mintlify agent*',
  '• `/agent &lt;instruction&gt;`',
  "I answer in the message's thread; reply there to give the agent follow-up instructions, and I post the pull request there when it is ready. Your jobs and this hour's quota are on my Home tab.",
].join('\n');

/** Usage for the conversational doors (a bare mention, `help` in a DM), then which project this place uses. */
export function conversationUsage(projects?: string): Message {
  const text = [CONVERSATION_USAGE, projects].filter(Boolean).join('\n\n');
  return { text, blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }] };
}

/** Usage, after `reason` when there is one, and before `projects` (which project this channel uses). */
export function usage(reason?: string, projects?: string): Message {
  const text = [reason, USAGE, projects].filter(Boolean).join('\n\n');
  return { text, blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }] };
}

/** Text alone (no blocks) carries up to 40,000 characters, where a section block would cut at 3,000. */
const ECHO_MAX_CHARS = 30_000;
/** Slack's limits on a message's text and on one section's text. */
const TEXT_MAX_CHARS = 40_000;
const SECTION_MAX_CHARS = 3_000;

/** Echoes the user's text back, whole, so it is not lost when we could not act on it. */
function withPrompt(problem: string, prompt: string): Message {
  const head = `${problem}\n\nYour instruction, to copy and retry:\n`;
  return { text: `${head}${clipEscaped(quote(prompt, ECHO_MAX_CHARS), TEXT_MAX_CHARS - head.length)}` };
}

const code = (text: string) => `\`${plainText(text, 100)}\``;

export const errors = {
  /** With the instruction when there is one, so it is not lost (e.g. to run it where it is allowed). */
  notAllowed: (prompt?: string): Message => {
    const problem =
      'Sorry, you are not allowed to use the Mintlify agent here. Ask your workspace admin to add you or this channel.';
    return prompt?.trim() ? withPrompt(problem, prompt) : { text: problem };
  },
  formUnavailable: (slackError: string): Message => ({
    text: `:warning: Slack did not open the form (${plainText(slackError, 60)}), so nothing was started. Run *Ask the Mintlify agent* on the message again.`,
  }),
  notInChannel: (prompt: string): Message =>
    withPrompt(
      ":warning: I can't post in this channel, so I didn't start the job. Add me with `/invite @Mintlify` (or from the channel's Integrations tab) and run the command again.",
      prompt,
    ),
  notInConversation: (prompt: string): Message =>
    withPrompt(
      ":warning: I can't post in this conversation, so I didn't start the job. Run the command in a channel I'm in, or in my Messages tab (open Mintlify under Apps).",
      prompt,
    ),
  createLimit: (project: string, prompt: string, retryAfterMs: number, now: number): Message =>
    withPrompt(
      `:hourglass: The Mintlify agent has reached its limit of new jobs for project ${code(project)} (100 per hour). The next slot opens ${when(retryAfterMs, now)}.`,
      prompt,
    ),
  followUpLimit: (project: string, prompt: string, retryAfterMs: number, now: number): Message =>
    withPrompt(
      `:hourglass: The Mintlify agent has reached its limit of follow-ups for project ${code(project)} (100 per hour). The next slot opens ${when(retryAfterMs, now)}.`,
      prompt,
    ),
  unavailable: (prompt: string): Message =>
    withPrompt(':warning: I could not reach Mintlify, so nothing was started. Try again in a minute.', prompt),
  maybeStarted: (prompt: string): Message =>
    withPrompt(
      ':warning: Mintlify did not answer in time, so I cannot tell whether the job started. Check the Mintlify dashboard before you run it again.',
      prompt,
    ),
  maybeDelivered: (prompt: string): Message =>
    withPrompt(
      ':warning: Mintlify did not answer in time, so I cannot tell whether the agent received this instruction. Wait for the result in this thread before sending it again.',
      prompt,
    ),
  misconfigured: (project: string, prompt: string): Message =>
    withPrompt(
      `:no_entry: The Mintlify app is misconfigured: the API key for project ${code(project)} was refused. Ask the admin who installed it to check its key.`,
      prompt,
    ),
  invalid: (prompt: string, serviceMessage: string): Message =>
    withPrompt(`:warning: Mintlify refused the instruction: ${escapeMrkdwn(serviceMessage)}`, prompt),
  storeUnavailable: (prompt: string): Message =>
    withPrompt(
      ':warning: My storage is unavailable right now, so I could not take this on. Try again shortly.',
      prompt,
    ),
  followUpUntracked: (prompt: string): Message =>
    withPrompt(
      ":warning: The agent received your instruction, but my storage is unavailable, so I can't post its result in this thread. Check the Mintlify dashboard for the outcome.",
      prompt,
    ),
  unknownProject: (project: string | undefined, projects: string, prompt: string): Message =>
    withPrompt(
      project === undefined
        ? `:warning: \`--project\` needs a project id before the instruction. ${projects}`
        : `:warning: I don't serve a project ${code(project)}, so I did not start the job. ${projects}`,
      prompt,
    ),
  jobStarting: (prompt: string): Message =>
    withPrompt(
      ':hourglass: The job in this thread is still starting, so I could not pass this on yet. Send it again in a few seconds.',
      prompt,
    ),
  jobGone: (prompt: string): Message =>
    withPrompt(':warning: This job no longer exists on Mintlify, so the follow-up was not sent.', prompt),
  slackFailed: (prompt: string): Message =>
    withPrompt(':warning: Slack did not accept my message, so I did not start the job. Try again shortly.', prompt),
};

function when(retryAfterMs: number, now: number): string {
  const at = new Date(now + retryAfterMs);
  const minutes = Math.max(1, Math.ceil(retryAfterMs / 60_000));
  return `in ${minutes} minute${minutes === 1 ? '' : 's'} (${at.toISOString().slice(11, 16)} UTC)`;
}

export function formatElapsed(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 1) return `${Math.max(0, Math.floor(ms / 1000))}s`;
  if (minutes < 60) return `${minutes}m`;
  return `${Math.floor(minutes / 60)}h ${minutes % 60}m`;
}

function sourceLine(record: JobRecord): string | undefined {
  const repo = record.repository ? record.repository.replace(/^https:\/\/github\.com\//, '') : undefined;
  if (!repo) return undefined;
  return `\`${escapeMrkdwn(repo)}${record.ref ? `@${escapeMrkdwn(record.ref)}` : ''}\``;
}

type RootState = EndedKind | 'working' | 'starting' | 'unknown';

const STATUS: Record<RootState, { emoji: string; words: string }> = {
  starting: { emoji: ':hourglass_flowing_sand:', words: 'Starting…' },
  working: { emoji: ':hourglass_flowing_sand:', words: 'Working' },
  unknown: { emoji: ':grey_question:', words: 'Status unknown: Mintlify did not answer in time' },
  pull_request: { emoji: ':white_check_mark:', words: 'Pull request ready' },
  no_changes: { emoji: ':white_check_mark:', words: 'Finished without changes' },
  failed: { emoji: ':x:', words: 'Failed' },
  archived: { emoji: ':file_cabinet:', words: 'Archived' },
  gone: { emoji: ':grey_question:', words: 'No longer exists' },
  expired: { emoji: ':zzz:', words: 'Stopped tracking' },
  untracked: { emoji: ':warning:', words: 'Result could not be posted in this thread' },
};

/** How a job's status reads (emoji and words), as its status line shows it. */
export function jobStatus(record: JobRecord): { emoji: string; words: string } {
  return STATUS[record.ended ?? 'working'];
}

/** Who asked, in which project, before the job exists. */
export interface PendingJob {
  project: string;
  userId: string;
  prompt: string;
  /** How much thread context the prompt carries; empty or unset when none. */
  contextNote?: string | undefined;
}

export interface RootOptions {
  now?: number;
  /** Name the project: set when the bot serves more than one. */
  showProject?: boolean;
  /** The job could not be confirmed (the create timed out). */
  unknown?: boolean;
}

/** The root message everyone sees: who asked, what, and a status line kept fresh while the job runs. */
export function rootMessage(job: PendingJob | JobRecord, options: RootOptions = {}): Message {
  const record = 'jobId' in job ? job : undefined;
  const who = `<@${job.userId}> asked the Mintlify agent:\n`;
  const asked = `${who}${clipEscaped(quote(job.prompt, PROMPT_PREVIEW_CHARS), SECTION_MAX_CHARS - who.length)}`;
  const state: RootState = options.unknown ? 'unknown' : !record ? 'starting' : (record.ended ?? 'working');
  const { emoji, words } = STATUS[state];
  const parts = [`${emoji} ${words}`];
  if (options.showProject) parts.push(`project ${code(job.project)}`);
  if (job.contextNote) parts.push(escapeMrkdwn(job.contextNote));
  if (record) {
    if (state === 'working')
      parts.push(`${formatElapsed((options.now ?? Date.now()) - record.roundStartedAtMs)} elapsed`);
    parts.push(`job \`${escapeMrkdwn(record.jobId)}\``);
    const source = sourceLine(record);
    if (source) parts.push(source);
    if (record.model) parts.push(escapeMrkdwn(record.model));
  }
  const hint = record && !record.ended ? 'Reply in this thread to give the agent follow-up instructions.' : undefined;
  return {
    text: `${words}: ${plainText(job.prompt, FALLBACK_PROMPT_CHARS)}`,
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: asked } },
      { type: 'context', elements: [{ type: 'mrkdwn', text: parts.join(' · ') }] },
      ...(hint ? [{ type: 'context' as const, elements: [{ type: 'mrkdwn' as const, text: hint }] }] : []),
    ],
  };
}

/** `metadata.event_type` of an outcome post: the thread itself says which rounds were reported. */
export const OUTCOME_EVENT_TYPE = 'mintlify_agent_outcome';

/** The one thread message that reports how a round ended. */
export function outcomeMessage(record: JobRecord, outcome: Outcome, jobMaxAgeMs: number): Message {
  const source = sourceLine(record);
  switch (outcome.kind) {
    case 'pull_request': {
      const url = safeUrl(outcome.prLink);
      const verb = outcome.updated ? 'updated the pull request' : 'opened a pull request';
      const text = url
        ? `:white_check_mark: The agent ${verb}: ${safeLink(url)}`
        : `:white_check_mark: The agent ${verb}, but its link is not a safe https URL: ${code(outcome.prLink)}`;
      const blocks: types.KnownBlock[] = [{ type: 'section', text: { type: 'mrkdwn', text } }];
      if (url) {
        blocks.push({
          type: 'actions',
          elements: [
            {
              type: 'button',
              action_id: OPEN_PR_ACTION,
              text: { type: 'plain_text', text: 'Open pull request' },
              url,
              style: 'primary',
            },
          ],
        });
      }
      if (source) blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: source }] });
      return { text: `The agent ${verb}: ${url ? `<${url}>` : '(link withheld)'}`, blocks };
    }
    case 'no_changes':
      return plain(':white_check_mark: The agent finished without changing any files, so there is no pull request.');
    case 'failed':
      return plain(
        ':x: The agent job failed. Reply in this thread with more detail to try again, or start a new job with `/agent`.',
      );
    case 'archived':
      return plain(':file_cabinet: This agent job was archived; it will not make further changes.');
    case 'gone':
      return plain(':grey_question: This job no longer exists on Mintlify, so I stopped tracking it.');
    case 'expired':
      return plain(
        `:zzz: I stopped tracking this job after ${formatElapsed(jobMaxAgeMs)} without a result. Check the Mintlify dashboard for its status.`,
      );
  }
}

/** The link button on a pull request outcome. Slack sends a click on it too, which must be acknowledged. */
export const OPEN_PR_ACTION = 'agent.open_pr';

/** A private note to the requester when their job's outcome could not be posted in its thread for good. */
export function undeliveredNote(record: JobRecord, outcome: Outcome, jobMaxAgeMs: number, slackError: string): Message {
  const head = `:warning: I couldn't post the result of your Mintlify agent job in <#${record.channel}> (Slack said ${code(slackError)}), so here it is:`;
  const result = outcomeMessage(record, outcome, jobMaxAgeMs);
  return {
    text: `${head}\n${result.text}`,
    blocks: [plain(head).blocks?.[0], ...(result.blocks ?? [])].filter((b) => b !== undefined),
  };
}

function plain(text: string): Message {
  return { text, blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }] };
}
