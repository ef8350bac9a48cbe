import type { types } from '@slack/bolt';
import { quote, safeLink, truncate } from '../slack/mrkdwn.js';
import { pickedProject, projectPicker } from '../slack/project-picker.js';
import { type Origin, OriginSchema } from './requests.js';

/** The message shortcut "Ask the Mintlify agent" and the modal it opens share this id. */
export const SHORTCUT_ID = 'agent_from_message';
export const INSTRUCTION_BLOCK = 'instruction';
const VALUE = 'value';
/** Slack's limit on a plain_text_input's initial value and length. */
const INPUT_MAX_CHARS = 3_000;

export interface ModalInput {
  origin: Origin;
  /** The message as the person wrote it (decoded). */
  text: string;
  author?: string | undefined;
  projects: readonly string[];
  project: string;
}

/** The modal: the message quoted with its link, an editable instruction prefilled with it, and a project picker. */
export function shortcutModal(input: ModalInput): types.ModalView {
  const { origin, text, projects, project } = input;
  const link = safeLink(origin.permalink, 'this message') ?? 'this message';
  const by = input.author ? ` by <@${input.author}>` : '';
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
    ...projectPicker(projects, project),
  ];
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
  const project = pickedProject(values);
  return { ok: true, origin, instruction, project };
}

/** The instruction sent to the agent: as written in the form, with the message's link. */
export function shortcutPrompt(instruction: string, origin: Origin): string {
  return origin.permalink ? `${instruction}\n\nSlack message this request is about: ${origin.permalink}` : instruction;
}
