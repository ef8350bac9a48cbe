import type { types } from '@slack/bolt';
import { escapeMrkdwn, quote, safeLink } from '../slack/mrkdwn.js';
import type { JobRecord } from './bindings.js';
import type { Outcome } from './outcome.js';

/** A Slack message: Block Kit with the plain-text fallback Slack shows in notifications. */
export interface Message {
  text: string;
  blocks?: types.KnownBlock[];
}

const PROMPT_PREVIEW_CHARS = 600;

export const USAGE = [
  '*Start a Mintlify agent job on the docs:* `/agent <instruction>`',
  'Examples:',
  '• `/agent Document the new rate-limit headers on the webhooks page`',
  '• `/agent Fix broken links in the quickstart`',
  'I post the job in this channel; reply in its thread to give the agent follow-up instructions.',
  'When the job ends I post the pull request (or say why there is none) in the thread.',
].join('\n');

export function usage(reason?: string): Message {
  const text = reason ? `${reason}\n\n${USAGE}` : USAGE;
  return { text, blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }] };
}

/** Text alone (no blocks) carries up to 40,000 characters, where a section block would cut at 3,000. */
const ECHO_MAX_CHARS = 30_000;

/** Slack's limits on a message's text and on one section's text. */
const TEXT_MAX_CHARS = 40_000;
const SECTION_MAX_CHARS = 3_000;

/**
 * Escaping can make quoted text up to 5× longer (`&` → `&amp;`), so limits are applied to the result too:
 * cut at `max` characters, never inside an entity or a surrogate pair.
 */
function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max - 1).replace(/&[a-z]*$|[\uD800-\uDBFF]$/, '')}…`;
}

/** Echoes the user's text back, whole, so it is not lost when we could not act on it. */
function withPrompt(problem: string, prompt: string): Message {
  const head = `${problem}\n\nYour instruction, to copy and retry:\n`;
  return { text: `${head}${clip(quote(prompt, ECHO_MAX_CHARS), TEXT_MAX_CHARS - head.length)}` };
}

export const errors = {
  notAllowed: (): Message => ({
    text: 'Sorry, you are not allowed to use the Mintlify agent here. Ask your workspace admin to add you or this channel.',
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
  createLimit: (prompt: string, retryAfterMs: number, now: number): Message =>
    withPrompt(
      `:hourglass: The Mintlify agent has reached its limit of new jobs for this project (100 per hour). The next slot opens ${when(retryAfterMs, now)}.`,
      prompt,
    ),
  followUpLimit: (prompt: string, retryAfterMs: number, now: number): Message =>
    withPrompt(
      `:hourglass: The Mintlify agent has reached its limit of follow-ups for this project (100 per hour). The next slot opens ${when(retryAfterMs, now)}.`,
      prompt,
    ),
  unavailable: (prompt: string): Message =>
    withPrompt(
      ':warning: Mintlify did not answer in time, so the job may not have started. Try again in a minute.',
      prompt,
    ),
  misconfigured: (prompt: string): Message =>
    withPrompt(
      ':no_entry: The Mintlify app is misconfigured (its API key was refused). Ask the admin who installed it to check `MINTLIFY_API_KEY`.',
      prompt,
    ),
  invalid: (prompt: string, serviceMessage: string): Message =>
    withPrompt(`:warning: Mintlify refused the instruction: ${escapeMrkdwn(serviceMessage)}`, prompt),
  storeUnavailable: (prompt: string): Message =>
    withPrompt(
      ':warning: My storage is unavailable right now, so I could not take this on. Try again shortly.',
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

const STATUS: Record<NonNullable<JobRecord['ended']> | 'working' | 'starting', string> = {
  starting: ':hourglass_flowing_sand: Starting…',
  working: ':hourglass_flowing_sand: Working',
  pull_request: ':white_check_mark: Pull request ready',
  no_changes: ':white_check_mark: Finished without changes',
  failed: ':x: Failed',
  archived: ':file_cabinet: Archived',
  gone: ':grey_question: No longer exists',
  expired: ':zzz: Stopped tracking',
};

/** The root message everyone sees: who asked, what, and a status line kept fresh while the job runs. */
export function rootMessage(input: { userId: string; prompt: string }, record?: JobRecord, now = Date.now()): Message {
  const who = `<@${input.userId}> asked the Mintlify agent:\n`;
  const asked = `${who}${clip(quote(input.prompt, PROMPT_PREVIEW_CHARS), SECTION_MAX_CHARS - who.length)}`;
  const state = !record ? 'starting' : (record.ended ?? 'working');
  const parts = [STATUS[state]];
  if (record) {
    if (state === 'working') parts.push(`${formatElapsed(now - record.roundStartedAtMs)} elapsed`);
    parts.push(`job \`${escapeMrkdwn(record.jobId)}\``);
    const source = sourceLine(record);
    if (source) parts.push(source);
    if (record.model) parts.push(escapeMrkdwn(record.model));
  }
  const status = parts.join(' · ');
  const hint = record && !record.ended ? 'Reply in this thread to give the agent follow-up instructions.' : undefined;
  return {
    text: `${STATUS[state].replace(/^:[a-z_]+: /, '')}: ${input.prompt.slice(0, 150)}`,
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: asked } },
      { type: 'context', elements: [{ type: 'mrkdwn', text: status }] },
      ...(hint ? [{ type: 'context' as const, elements: [{ type: 'mrkdwn' as const, text: hint }] }] : []),
    ],
  };
}

/** The one thread message that reports how the job ended. */
export function outcomeMessage(record: JobRecord, outcome: Outcome, jobMaxAgeMs: number): Message {
  const source = sourceLine(record);
  switch (outcome.kind) {
    case 'pull_request': {
      const link = safeLink(outcome.prLink);
      const verb = outcome.updated ? 'updated the pull request' : 'opened a pull request';
      const text = link
        ? `:white_check_mark: The agent ${verb}: ${link}`
        : `:white_check_mark: The agent ${verb}, but its link is not a safe https URL: \`${escapeMrkdwn(outcome.prLink)}\``;
      const blocks: types.KnownBlock[] = [{ type: 'section', text: { type: 'mrkdwn', text } }];
      if (link) {
        blocks.push({
          type: 'actions',
          elements: [
            {
              type: 'button',
              action_id: 'agent.open_pr',
              text: { type: 'plain_text', text: 'Open pull request' },
              url: outcome.prLink,
              style: 'primary',
            },
          ],
        });
      }
      if (source) blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: source }] });
      return { text: `The agent ${verb}: ${link ? outcome.prLink : '(link withheld)'}`, blocks };
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

function plain(text: string): Message {
  return { text, blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }] };
}
