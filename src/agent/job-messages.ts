import type { types } from '@slack/bolt';
import type { ProjectOrigin } from '../config/projects.js';
import { isKnownStatus } from '../mintlify/schemas.js';
import { type Message, SECTION_MAX_CHARS } from '../slack/message.js';
import { clipEscaped, escapeMrkdwn, inlineCode, MAX_URL_CHARS, plainText, quote, safeUrl } from '../slack/mrkdwn.js';
import { type EndedKind, type JobRecord, shownEnd } from '../store/jobs.js';
import { feedbackBlock } from './feedback/buttons.js';
import type { Outcome } from './tracking/outcome.js';
import { unserved } from './unserved.js';

// The messages a job shows everyone: its root message (who asked, what, a status line) and its outcome post.

const PROMPT_PREVIEW_CHARS = 600;
/** Notifications show only `text`: a status word and the start of the prompt. */
const FALLBACK_PROMPT_CHARS = 150;

export function formatElapsed(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 1) return `${Math.max(0, Math.floor(ms / 1000))}s`;
  if (minutes < 60) return `${minutes}m`;
  return `${Math.floor(minutes / 60)}h ${minutes % 60}m`;
}

/**
 * How many characters of what the service names a job's root shows: the contract bounds none of these strings, and
 * a status line over Slack's 3,000 characters is refused (`invalid_blocks`) on every refresh.
 */
export const SHOWN_CHARS = { source: 200, model: 80, status: 40 } as const;

/** `repository@ref` as the job works on it (a GitHub repository by its name alone); undefined without one. */
export function sourceOf(record: JobRecord): string | undefined {
  const repo = record.repository ? record.repository.replace(/^https:\/\/github\.com\//, '') : undefined;
  return repo ? `${repo}${record.ref ? `@${record.ref}` : ''}` : undefined;
}

function sourceLine(record: JobRecord): string | undefined {
  const source = sourceOf(record);
  return source ? inlineCode(source, SHOWN_CHARS.source) : undefined;
}

type RootState = EndedKind | 'working' | 'starting' | 'unknown';

const STATUS: Record<RootState, { emoji: string; words: string }> = {
  starting: { emoji: ':hourglass_flowing_sand:', words: 'Starting…' },
  working: { emoji: ':hourglass_flowing_sand:', words: 'Working' },
  unknown: { emoji: ':grey_question:', words: 'Status unknown' },
  pull_request: { emoji: ':white_check_mark:', words: 'Pull request ready' },
  no_changes: { emoji: ':white_check_mark:', words: 'Finished without changes' },
  failed: { emoji: ':x:', words: 'Failed' },
  archived: { emoji: ':file_cabinet:', words: 'Archived' },
  gone: { emoji: ':grey_question:', words: 'No longer exists' },
  expired: { emoji: ':zzz:', words: 'Stopped tracking' },
  disconnected: { emoji: ':electric_plug:', words: unserved('connected').status },
  untracked: { emoji: ':warning:', words: 'Result could not be posted in this thread' },
  stopped: { emoji: ':warning:', words: 'Tracking stopped' },
  halted: { emoji: ':octagonal_sign:', words: 'Stopped' },
};

/** A Slack user id, safe to write as a mention. */
const SLACK_USER = /^[UW][A-Z0-9]{2,}$/;

/** How a job's status reads (emoji and words), as its status line shows it: a Stop names who pressed it. */
export function jobStatus(record: JobRecord, origin: ProjectOrigin): { emoji: string; words: string } {
  const ended = shownEnd(record) ?? 'working';
  const status = ended === 'disconnected' ? { ...STATUS[ended], words: unserved(origin).status } : STATUS[ended];
  const by = ended === 'halted' && SLACK_USER.test(record.stoppedBy ?? '') ? record.stoppedBy : undefined;
  return by ? { ...status, words: `Stopped by <@${by}>` } : status;
}

/** How a person steers a job's thread, as its hints say it: a reply, or only a message that mentions the bot. */
export type Steer = 'reply' | 'mention';

/** The hint's verb, at the start of a sentence: "Reply in this thread …" or "Mention me in this thread …". */
export const steerVerb = (steer: Steer) => (steer === 'reply' ? 'Reply' : 'Mention me');

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
  /** The job could not be confirmed (the create timed out, say): what the status line says instead. */
  unknown?: string;
  /** How the thread is steered, as the hint says it (`steerOf`); a reply when left out. */
  steer?: Steer;
  /** Where the app's projects are set (`projectOrigin`), as an ended job's status says it; connected when left out. */
  origin?: ProjectOrigin;
}

/** The root message everyone sees: who asked, what, and a status line kept fresh while the job runs. */
export function rootMessage(job: PendingJob | JobRecord, options: RootOptions = {}): Message {
  const record = 'jobId' in job ? job : undefined;
  const who = `<@${job.userId}> asked the Mintlify agent:\n`;
  const asked = `${who}${clipEscaped(quote(job.prompt, PROMPT_PREVIEW_CHARS), SECTION_MAX_CHARS - who.length)}`;
  const shown = record && shownEnd(record);
  const origin = options.origin ?? 'connected';
  const { emoji, words } = options.unknown
    ? { ...STATUS.unknown, words: options.unknown }
    : record
      ? jobStatus(record, origin)
      : STATUS.starting;
  const parts = [`${emoji} ${words}`];
  if (options.showProject) parts.push(`project ${inlineCode(job.project)}`);
  if (job.contextNote) parts.push(escapeMrkdwn(job.contextNote));
  if (record) {
    if (!options.unknown && !shown) {
      // A status the bot does not know is shown as the service sent it: the person can read what it means.
      if (!isKnownStatus(record.status)) parts.push(`Mintlify says ${inlineCode(record.status, SHOWN_CHARS.status)}`);
      parts.push(`${formatElapsed((options.now ?? Date.now()) - record.roundStartedAtMs)} elapsed`);
    }
    parts.push(`job ${inlineCode(record.jobId)}`);
    const source = sourceLine(record);
    if (source) parts.push(source);
    if (record.model) parts.push(inlineCode(record.model, SHOWN_CHARS.model));
  }
  const steer = options.steer ?? 'reply';
  const hint = !record ? undefined : shown ? ENDED_HINTS[shown]?.(steer, origin) : rootHint(steer);
  return {
    text: `${words}: ${plainText(job.prompt, FALLBACK_PROMPT_CHARS)}`,
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: asked } },
      { type: 'context', elements: [{ type: 'mrkdwn', text: parts.join(' · ') }] },
      ...(hint ? [{ type: 'context' as const, elements: [{ type: 'mrkdwn' as const, text: hint }] }] : []),
    ],
  };
}

const rootHint = (steer: Steer) => `${steerVerb(steer)} in this thread to give the agent follow-up instructions.`;
const ENDED_HINTS: Partial<Record<EndedKind, (steer: Steer, origin: ProjectOrigin) => string>> = {
  disconnected: (steer, origin) =>
    `${unserved(origin).once}, ${steerVerb(steer).toLowerCase()} in this thread to pick it up again.`,
  stopped: (steer) =>
    `${steerVerb(steer)} in this thread to pick it up again: your message goes to the agent and I follow the job from there.`,
  halted: (steer) =>
    `${steerVerb(steer)} in this thread to give the agent new instructions: I follow the job again from there.`,
};

/**
 * Said in the thread, once, when tracking a round failed for good (`tracking/stop.ts`): what stopped, that the agent
 * may still be working, and how to resume: a message that steers the job (`steering.ts`) starts its next round.
 */
export function trackingStoppedMessage(record: JobRecord, steer: Steer): Message {
  const how = `${steerVerb(steer)} in this thread`;
  return plain(
    `:warning: I stopped tracking this job: checking on it kept failing on my side, so I can't tell you when it ends. The agent may still be working (job ${inlineCode(record.jobId)}). ${how} to pick it up again: your message goes to the agent as an instruction, and I follow the job from there.`,
  );
}

/** `metadata.event_type` of an outcome post: the thread itself says which rounds were reported. */
export const OUTCOME_EVENT_TYPE = 'mintlify_agent_outcome';

/** How an outcome is told: when tracking gives up, how its thread is steered (`steerOf`), `projectOrigin`. */
export type Telling = { jobMaxAgeMs: number; steer: Steer; origin: ProjectOrigin };

/** The one thread message that reports how a round ended. */
export function outcomeMessage(record: JobRecord, outcome: Outcome, { jobMaxAgeMs, steer, origin }: Telling): Message {
  const source = sourceLine(record);
  switch (outcome.kind) {
    case 'pull_request': {
      const verb = outcome.updated ? 'updated the pull request' : 'opened a pull request';
      const { line, link } = pullRequestLine(`:white_check_mark: The agent ${verb}`, outcome.prLink);
      const blocks: types.KnownBlock[] = [{ type: 'section', text: { type: 'mrkdwn', text: line } }];
      if (link) blocks.push(link);
      if (source) blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: source }] });
      blocks.push(feedbackBlock(record));
      return { text: line.replace(/^:white_check_mark: /, ''), blocks };
    }
    case 'no_changes': {
      const message = plain(
        ':white_check_mark: The agent finished without changing any files, so there is no pull request.',
      );
      return { ...message, blocks: [...(message.blocks ?? []), feedbackBlock(record)] };
    }
    case 'failed':
      return plain(
        `:x: The agent job failed. ${steerVerb(steer)} in this thread with more detail to try again, or start a new job with \`/agent\`.`,
      );
    case 'archived': {
      const archived = ':file_cabinet: This agent job was archived; it will not make further changes.';
      if (!outcome.prLink) return plain(archived);
      const { line, link } = pullRequestLine(`${archived} Its pull request`, outcome.prLink);
      const message = plain(line);
      return { ...message, blocks: [...(message.blocks ?? []), ...(link ? [link] : [])] };
    }
    case 'gone':
      return plain(':grey_question: This job no longer exists on Mintlify, so I stopped tracking it.');
    case 'expired':
      return plain(
        `:zzz: I stopped tracking this job after ${formatElapsed(jobMaxAgeMs)} without a result. Check the Mintlify dashboard for its status.`,
      );
    case 'disconnected': {
      const { gone, cause, once } = unserved(origin);
      return plain(
        `:electric_plug: I stopped following this job: project ${inlineCode(record.project)} ${gone}${cause}, so I have no key to ask about it. The agent may still be working (job ${inlineCode(record.jobId)}): check the Mintlify dashboard. ${once}, ${steerVerb(steer).toLowerCase()} in this thread to pick it up again: your message goes to the agent as an instruction, and I follow the job from there.`,
      );
    }
  }
}

/** The link button on a pull request outcome. Slack sends a click on it too, which must be acknowledged. */
export const OPEN_PR_ACTION = 'agent.open_pr';

/** A message's text is cut past 40,000 characters: the longest link a post can carry. */
const MESSAGE_MAX_CHARS = 40_000;

/** A pull request's link as Slack should receive it: the documents bound no `prLink`, Slack's message does. */
export const pullRequestUrl = (prLink: string | null | undefined) => safeUrl(prLink, MESSAGE_MAX_CHARS);

/**
 * `lead` and the pull request: its link in the sentence only when both fit a section's text, and always the block
 * that opens it (`openPullRequest`), so a long link neither gets the post refused nor goes missing.
 */
function pullRequestLine(lead: string, prLink: string): { line: string; link?: types.KnownBlock } {
  const url = pullRequestUrl(prLink);
  if (!url) return { line: `${lead}, but its link is not an https URL Slack can open: ${inlineCode(prLink)}` };
  const linked = `${lead}: <${url}>`;
  return { line: linked.length <= SECTION_MAX_CHARS ? linked : `${lead}.`, link: openPullRequest(url) };
}

/**
 * What opens the pull request (a checked https URL): a button, acknowledged by the `agent.open_pr` action, or past
 * a button's 3,000 characters a rich text link, for which Slack documents no limit.
 */
export function openPullRequest(url: string): types.ActionsBlock | types.RichTextBlock {
  if (url.length > MAX_URL_CHARS) {
    const link = { type: 'link' as const, url, text: 'Open pull request' };
    return { type: 'rich_text', elements: [{ type: 'rich_text_section', elements: [link] }] };
  }
  return {
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
  };
}

/** A private note to the requester when their job's outcome could not be posted in its thread for good. */
export function undeliveredNote(record: JobRecord, outcome: Outcome, telling: Telling, slackError: string): Message {
  const head = `:warning: I couldn't post the result of your Mintlify agent job in <#${record.channel}> (Slack said ${inlineCode(slackError)}), so here it is:`;
  const result = outcomeMessage(record, outcome, telling);
  return {
    text: `${head}\n${result.text}`,
    blocks: [plain(head).blocks?.[0], ...(result.blocks ?? [])].filter((b) => b !== undefined),
  };
}

function plain(text: string): Message {
  return { text, blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }] };
}
