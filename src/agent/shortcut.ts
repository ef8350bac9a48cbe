import type { types } from '@slack/bolt';
import { z } from 'zod';
import { decodeSlackText } from '../slack/decode.js';
import { slackErrorCode } from '../slack/errors.js';
import { quote, safeLink, truncate } from '../slack/mrkdwn.js';
import { decodeWithNames } from '../slack/user-names.js';
import { isAllowed } from './access.js';
import type { AgentContext } from './context.js';
import { tellPrivately } from './conversation.js';
import { errors } from './messages.js';
import { startJob } from './start-job.js';

/** The message shortcut "Ask the Mintlify agent" and the modal it opens share this id. */
export const SHORTCUT_ID = 'agent_from_message';
export const INSTRUCTION_BLOCK = 'instruction';
export const PROJECT_BLOCK = 'project';
const VALUE = 'value';
/** Slack's limit on a plain_text_input's initial value and length. */
const INPUT_MAX_CHARS = 3_000;

/** What the modal carries from the shortcut to its submission (`private_metadata`). */
const OriginSchema = z.object({
  channel: z.string().min(1),
  /** The thread the job goes to: the message's own thread, or the one it was written in. */
  threadTs: z.string().min(1),
  permalink: z.string().optional(),
});
export type Origin = z.infer<typeof OriginSchema>;

export interface ModalInput {
  origin: Origin;
  /** The message as the person wrote it (decoded). */
  text: string;
  author?: string | undefined;
  projects: readonly string[];
  project: string;
}

/** Slack's limit on a static_select's options. */
const SELECT_MAX_OPTIONS = 100;

/** The projects the picker offers, in order: at most Slack's limit, the preset one always among them. */
function pickable(projects: readonly string[], preset: string): readonly string[] {
  const first = projects.slice(0, SELECT_MAX_OPTIONS);
  return first.includes(preset) ? first : [...first.slice(0, -1), preset];
}

/** The modal: the message quoted with its link, an editable instruction prefilled with it, and a project picker. */
export function shortcutModal(input: ModalInput): types.ModalView {
  const { origin, text, projects, project } = input;
  const link = safeLink(origin.permalink, 'this message') ?? 'this message';
  const by = input.author ? ` by <@${input.author}>` : '';
  const option = (p: string) => ({ text: { type: 'plain_text' as const, text: truncate(p, 75) }, value: p });
  const blocks: types.KnownBlock[] = [
    { type: 'section', text: { type: 'mrkdwn', text: `From ${link}${by}:\n${quote(text, 1_000)}` } },
    {
      type: 'input',
      block_id: INSTRUCTION_BLOCK,
      label: { type: 'plain_text', text: 'Instruction for the agent' },
      hint: { type: 'plain_text', text: "The message's link is sent along. The job starts in the message's thread." },
      element: {
        type: 'plain_text_input',
        action_id: VALUE,
        multiline: true,
        max_length: INPUT_MAX_CHARS,
        ...(text && { initial_value: truncate(text, INPUT_MAX_CHARS) }),
      },
    },
  ];
  if (projects.length > 1) {
    blocks.push({
      type: 'input',
      block_id: PROJECT_BLOCK,
      label: { type: 'plain_text', text: 'Mintlify project' },
      element: {
        type: 'static_select',
        action_id: VALUE,
        options: pickable(projects, project).map(option),
        initial_option: option(project),
      },
    });
  }
  return {
    type: 'modal',
    callback_id: SHORTCUT_ID,
    title: { type: 'plain_text', text: 'Mintlify agent' },
    submit: { type: 'plain_text', text: 'Start job' },
    close: { type: 'plain_text', text: 'Cancel' },
    private_metadata: JSON.stringify(origin),
    blocks,
  };
}

/** A modal that only says why the form is not offered (not allowed here). */
export function noticeModal(text: string): types.ModalView {
  return {
    type: 'modal',
    title: { type: 'plain_text', text: 'Mintlify agent' },
    close: { type: 'plain_text', text: 'Close' },
    blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }],
  };
}

type StateValues = Record<
  string,
  Record<string, { value?: string | null; selected_option?: { value: string } | null }>
>;

export type Submission =
  | { ok: true; origin: Origin; instruction: string; project?: string | undefined }
  | { ok: false; errors: Record<string, string> };

/** Reads a submitted modal; an empty instruction is a field error shown on the form, nothing is lost. */
export function parseSubmission(privateMetadata: string, values: StateValues): Submission {
  let origin: Origin;
  try {
    origin = OriginSchema.parse(JSON.parse(privateMetadata));
  } catch {
    return {
      ok: false,
      errors: { [INSTRUCTION_BLOCK]: 'This form lost track of its message. Close it and use the shortcut again.' },
    };
  }
  const instruction = values[INSTRUCTION_BLOCK]?.[VALUE]?.value?.trim() ?? '';
  if (!instruction) return { ok: false, errors: { [INSTRUCTION_BLOCK]: 'Write what the agent should do.' } };
  const project = values[PROJECT_BLOCK]?.[VALUE]?.selected_option?.value;
  return { ok: true, origin, instruction, project };
}

/** The instruction sent to the agent: as written in the form, with the message's link. */
export function shortcutPrompt(instruction: string, origin: Origin): string {
  return origin.permalink ? `${instruction}\n\nSlack message this request is about: ${origin.permalink}` : instruction;
}

/** Slack's `trigger_id` lasts 3 s: what the modal shows is fetched for at most this long, then it opens anyway. */
const PREFILL_BUDGET_MS = 1_000;

/** The parts of a `message_action` payload the shortcut reads. */
export interface MessageAction {
  trigger_id: string;
  user: { id: string };
  channel: { id: string };
  message: { ts: string; thread_ts?: string; text?: string; user?: string };
}

/**
 * Opens the modal for a message: its permalink and decoded text are fetched in parallel, each within
 * `PREFILL_BUDGET_MS` (a slow one is left out, never the modal), then `views.open` runs at once. It never waits
 * in the after-ack queue: a backlog there must not outlive the trigger.
 */
export async function openShortcutModal(
  ctx: AgentContext,
  action: MessageAction,
): Promise<{ ok: true } | { ok: false; text: string }> {
  const channel = action.channel.id;
  const userId = action.user.id;
  const open = (view: types.ModalView) =>
    ctx.slack.views.open({ trigger_id: action.trigger_id, view }).then(
      () => ({ ok: true }) as const,
      (error) => {
        const code = slackErrorCode(error);
        ctx.log.warn('slack.views_open_failed', { op: 'agent.shortcut', slack_error: code });
        return { ok: false, text: errors.formUnavailable(code).text } as const;
      },
    );
  if (!isAllowed(ctx.config, userId, channel)) return open(noticeModal(errors.notAllowed().text));
  const wire = action.message.text ?? '';
  const [permalink, text] = await Promise.all([
    within(
      ctx.slack.chat.getPermalink({ channel, message_ts: action.message.ts }).then((r) => r.permalink),
      PREFILL_BUDGET_MS,
    ),
    within(decodeWithNames(ctx, wire), PREFILL_BUDGET_MS),
  ]);
  const origin = { channel, threadTs: action.message.thread_ts ?? action.message.ts, ...(permalink && { permalink }) };
  return open(
    shortcutModal({
      origin,
      text: text ?? decodeSlackText(wire),
      author: action.message.user,
      projects: ctx.projects.all,
      project: ctx.projects.forChannel(channel),
    }),
  );
}

/** Starts the job a submitted modal asks for, in the message's thread; a refusal is told privately. */
export async function startFromShortcut(
  ctx: AgentContext,
  userId: string,
  submission: Extract<Submission, { ok: true }>,
): Promise<void> {
  const { origin, instruction } = submission;
  const chosen = submission.project;
  const project = chosen && ctx.projects.knows(chosen) ? chosen : ctx.projects.forChannel(origin.channel);
  const result = await startJob(ctx, {
    project,
    userId,
    channelId: origin.channel,
    prompt: shortcutPrompt(instruction, origin),
    threadTs: origin.threadTs,
  });
  if (!result.ok)
    await tellPrivately(ctx, { channel: origin.channel, userId, threadTs: origin.threadTs }, result.reply);
}

/** The promise's value, or `undefined` when it fails or takes longer than `ms`. */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([promise.catch(() => undefined), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
