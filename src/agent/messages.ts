import type { FollowUps } from '../config/config.js';
import type { ServiceFailure } from '../mintlify/failure.js';
import type { Message } from '../slack/message.js';
import { clipEscaped, inlineCode, plainText, quote, readerTime } from '../slack/mrkdwn.js';
import { HOURLY_LIMIT } from './quota.js';
import { maskSecrets } from './secret-text.js';

type LostAnswerOf = Pick<Extract<ServiceFailure, { code: 'unavailable' }>, 'lost' | 'status'>;

/** What became of Mintlify's answer, as the person who asked reads it (a sentence's start). */
function lostAnswer({ lost, status }: LostAnswerOf): string {
  switch (lost) {
    case 'timeout':
      return 'Mintlify did not answer in time';
    case 'network':
      return 'The connection to Mintlify dropped';
    case 'error_status':
      return `Mintlify answered with an error (HTTP ${status})`;
    case 'unreadable':
      return 'Mintlify’s answer could not be read';
  }
}

/** A create the service confirmed (201, the documented code) whose answer names no job the bot can follow. */
const startedUnfollowable = ({ lost, status }: LostAnswerOf) => lost === 'unreadable' && status === 201;

/** The root's status line when the create gave no job to follow. */
export function unknownRootStatus(failure: LostAnswerOf): string {
  if (startedUnfollowable(failure)) return 'Started, but Mintlify did not say which job: follow it in the dashboard';
  return `Status unknown: ${lostAnswer(failure)}`;
}

/** The root of a start whose worker died after posting it and before the job was bound (`start-attempt.ts`). */
export const interruptedRootStatus =
  'Interrupted by a restart while the job was being created: it may have started. Check the Mintlify dashboard before running it again';

/** The root of a job Mintlify started that the store could not bind to its thread. */
export const untrackedRootStatus = (jobId: string) =>
  `Started as job ${inlineCode(jobId)}, but I cannot follow it here: check the Mintlify dashboard`;

/** `/agent`'s usage; `followUps` (`AGENT_FOLLOW_UPS`): how its thread is steered. */
const commandUsage = (followUps: FollowUps) =>
  [
    '*Start a Mintlify agent job on the docs:* `/agent &lt;instruction&gt;`',
    'Examples:',
    '• `/agent Document the new rate-limit headers on the webhooks page`',
    '• `/agent Fix broken links in the quickstart`',
    `I post the job in this channel; ${followUps === 'reply' ? 'reply' : 'mention me'} in its thread to give the agent follow-up instructions.`,
    'When the job ends I post the pull request (or say why there is none) in the thread.',
    '`/agent stop` stops your latest job running here (or press Stop on the job’s thread).',
  ].join('\n');

const CONVERSATION_USAGE = [
  '*Ask the Mintlify agent to work on the docs* — any of these starts a job:',
  '• mention me with an instruction: `@Mintlify Document the new retry policy` (in a thread, the thread is the brief)',
  '• send me an instruction here in a direct message',
  '• on any message, *More actions → Ask the Mintlify agent*',
  '• `/agent &lt;instruction&gt;`',
].join('\n');

/** How follow-ups are given in the conversational doors' threads (`steers`). */
const conversationFollowUps = (followUps: FollowUps) =>
  followUps === 'reply'
    ? "I answer in the message's thread; reply there to give the agent follow-up instructions (in a discussion I joined, mention me),"
    : "I answer in the message's thread; mention me there to give the agent follow-up instructions,";

/** Usage for the conversational doors (a bare mention, `help` in a DM), then which project this place uses. */
export function conversationUsage(followUps: FollowUps, projects?: string): Message {
  const how = `${conversationFollowUps(followUps)} and I post the pull request there when it is ready. Your jobs and this hour's quota are on my Home tab.`;
  const text = [`${CONVERSATION_USAGE}\n${how}`, projects].filter(Boolean).join('\n\n');
  return { text, blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }] };
}

/** Usage, after `reason` when there is one, and before `projects` (which project this channel uses). */
export function usage(followUps: FollowUps, reason?: string, projects?: string): Message {
  const text = [reason, commandUsage(followUps), projects].filter(Boolean).join('\n\n');
  return { text, blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }] };
}

/** Text alone (no blocks) carries up to 40,000 characters, where a section block would cut at 3,000. */
const ECHO_MAX_CHARS = 30_000;
/** Slack's limit on a message's text. */
const TEXT_MAX_CHARS = 40_000;

/** Room always left for the problem before the echo, however long the echo is once escaped. */
const PROBLEM_MIN_CHARS = 1_000;
/** How much of the service's own words a refusal shows: its `error` has no bound. */
const SERVICE_MESSAGE_CHARS = 500;
const ECHO_LABEL = '\n\nYour instruction, to copy and retry:\n';

/**
 * Echoes the user's text back, whole, so it is not lost when we could not act on it. When the problem and the echo
 * do not fit in one message, the problem is cut, never the instruction: it is what the person needs to retry. A key
 * or token in it is shown masked (`secret-text.ts`).
 */
export function withPrompt(problem: string, prompt: string): Message {
  const echoMax = TEXT_MAX_CHARS - ECHO_LABEL.length - PROBLEM_MIN_CHARS;
  const echo = clipEscaped(quote(maskSecrets(prompt), ECHO_MAX_CHARS), echoMax);
  const room = TEXT_MAX_CHARS - ECHO_LABEL.length - echo.length;
  return { text: `${clipEscaped(problem, room)}${ECHO_LABEL}${echo}` };
}

export const errors = {
  /** With the instruction when there is one, so it is not lost (e.g. to run it where it is allowed). */
  notAllowed: (prompt?: string, external = false): Message => {
    const problem = external
      ? 'Sorry, the Mintlify agent here works only for members of this workspace, and you are from another organisation, so nothing was sent to it: your organisation has not installed Mintlify here. Ask your workspace admin to add Mintlify to Slack, or a member of this workspace to pass your instruction on.'
      : 'Sorry, you are not allowed to use the Mintlify agent here. Ask your workspace admin to add you or this channel.';
    return prompt?.trim() ? withPrompt(problem, prompt) : { text: problem };
  },
  /** A feedback button on a job this workspace's connection did not start (a Slack Connect organisation's). */
  anotherWorkspacesJob: (): Message => ({
    text: "Sorry, this job was started with another workspace's Mintlify, so only that workspace's people can rate it or tell it what went wrong. Nothing was recorded or sent.",
  }),
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
  /** `retryAfterMs`: when the next slot opens; undefined when nobody said. */
  createLimit: (project: string, prompt: string, retryAfterMs: number | undefined, now: number): Message =>
    withPrompt(
      `:hourglass: The Mintlify agent has reached its limit of new jobs for project ${inlineCode(project)} (${HOURLY_LIMIT} per hour). ${nextSlot(retryAfterMs, now)}`,
      prompt,
    ),
  followUpLimit: (project: string, prompt: string, retryAfterMs: number | undefined, now: number): Message =>
    withPrompt(
      `:hourglass: The Mintlify agent has reached its limit of follow-ups for project ${inlineCode(project)} (${HOURLY_LIMIT} per hour). ${nextSlot(retryAfterMs, now)}`,
      prompt,
    ),
  unavailable: (prompt: string): Message =>
    withPrompt(':warning: I could not reach Mintlify, so nothing was started. Try again in a minute.', prompt),
  /** Files shared with a bare mention (or alone in a DM): what to do with them? `channel`: where they were shared. */
  filesWithoutInstruction: (names: string[], channel: string): Message => ({
    text: `:paperclip: I have ${names.map((name) => inlineCode(name, 80)).join(', ')}, but no instruction for the agent. ${channel.startsWith('D') ? 'Reply' : 'Mention me'} in this thread with what the agent should do with ${names.length === 1 ? 'it' : 'them'}: I read the thread, its files included.`,
  }),
  maybeStarted: (prompt: string, failure: LostAnswerOf): Message =>
    withPrompt(
      startedUnfollowable(failure)
        ? ':warning: Mintlify started the job, but its answer did not say which job, so I cannot follow it here. Find it in the Mintlify dashboard: running it again would start a second job.'
        : `:warning: ${lostAnswer(failure)}, so I cannot tell whether the job started. Check the Mintlify dashboard before you run it again.`,
      prompt,
    ),
  maybeDelivered: (prompt: string, failure: LostAnswerOf, tracked: boolean): Message =>
    withPrompt(
      `:warning: ${lostAnswer(failure)}, so I cannot tell whether the agent received this instruction${tracked ? '. If I see the agent take it up in the next few minutes, I post its result here; if I don’t, I say nothing more, though the agent may still have made the change.' : ', and its result will not be posted here.'} Check the job in the Mintlify dashboard before you send it again.`,
      prompt,
    ),
  misconfigured: (project: string, prompt: string): Message =>
    withPrompt(
      `:no_entry: The Mintlify app is misconfigured: the API key for project ${inlineCode(project)} was refused. Ask the admin who installed it to check its key.`,
      prompt,
    ),
  projectUnknown: (project: string, prompt: string): Message =>
    withPrompt(
      `:no_entry: Mintlify does not know project ${inlineCode(project)}, so nothing was started. Ask the admin who installed the app to check its project id and configuration.`,
      prompt,
    ),
  invalid: (prompt: string, serviceMessage: string): Message =>
    withPrompt(
      `:warning: Mintlify refused the instruction: ${plainText(serviceMessage, SERVICE_MESSAGE_CHARS)}`,
      prompt,
    ),
  storeUnavailable: (prompt: string): Message =>
    withPrompt(
      ':warning: My storage is unavailable right now, so I could not take this on. Try again shortly.',
      prompt,
    ),
  restarting: (prompt: string): Message =>
    withPrompt(
      ':arrows_counterclockwise: I was restarting before I could start on this, so nothing was done. Run it again in a minute.',
      prompt,
    ),
  noWorker: (prompt: string, maxAgeMinutes: number): Message =>
    withPrompt(
      `:hourglass: This is queued, but no worker is running to take it on. It starts when one does; if none does within ${maxAgeMinutes} minutes, nothing is done and I tell you. Let whoever runs this app know.`,
      prompt,
    ),
  expired: (prompt: string, maxAgeMinutes: number): Message =>
    withPrompt(
      `:hourglass: This waited too long for a worker (over ${maxAgeMinutes} minutes), so nothing was done. Run it again if you still want it.`,
      prompt,
    ),
  failed: (prompt: string): Message =>
    withPrompt(
      ':warning: Something went wrong on my side while I was taking this on. If no job shows up here, run it again.',
      prompt,
    ),
  interrupted: (prompt: string): Message =>
    withPrompt(
      ':arrows_counterclockwise: I restarted while this job was being created, so I cannot tell whether the agent started it. Check the Mintlify dashboard before you run it again.',
      prompt,
    ),
  startedUntracked: (prompt: string): Message =>
    withPrompt(
      ":warning: The agent is working on this, but my storage is unavailable, so I can't post its result in the thread. Check the Mintlify dashboard for the outcome; there is no need to start it again.",
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
        : `:warning: I don't serve a project ${inlineCode(project)}, so I did not start the job. ${projects}`,
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

/** When the next slot opens: in minutes, and at a time Slack shows on each reader's clock (UTC as its fallback). */
function nextSlot(retryAfterMs: number | undefined, now: number): string {
  if (retryAfterMs === undefined) return 'Mintlify did not say when the next slot opens: try again later in the hour.';
  const at = now + retryAfterMs;
  const minutes = Math.max(1, Math.ceil(retryAfterMs / 60_000));
  return `The next slot opens in ${minutes} minute${minutes === 1 ? '' : 's'} (${readerTime(at)}).`;
}

/** The assistant pane's words: its suggested prompts (what a click sends) and its status while a job starts. */
export const paneCopy = {
  promptsTitle: 'What shall we do?',
  prompts: [
    { title: 'Start a job', message: 'help' },
    { title: 'This week’s visitors', message: 'visitors this week' },
    { title: 'My jobs', message: 'my jobs' },
  ],
  starting: 'is starting a job…',
  myJobs: '*Your newest Mintlify agent jobs*',
  noJobs: 'You have not started a job yet. Send me an instruction here and I start one.',
  loading: ['Taking an hourly slot…', 'Asking the Mintlify agent…'],
};
