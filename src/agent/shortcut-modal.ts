import type { types } from '@slack/bolt';
import { FIELD_VALUE, formModal, INPUT_MAX_CHARS, readRequiredField, type SubmittedValues } from '../slack/form.js';
import { SECTION_MAX_CHARS } from '../slack/message.js';
import { clipEscaped, quote, safeLink, truncate } from '../slack/mrkdwn.js';
import { pickedProject, projectPicker } from '../slack/project-picker.js';
import { type Origin, OriginSchema } from './requests.js';

/** The message shortcut "Ask the Mintlify agent" and the modal it opens share this id. */
export const SHORTCUT_ID = 'agent_from_message';
export const INSTRUCTION_BLOCK = 'instruction';

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
  const from = `From ${link}${input.author ? ` by <@${input.author}>` : ''}:\n`;
  // Escaped, the 1,000 characters quoted may be five times as long.
  const quoted = clipEscaped(quote(text, 1_000), SECTION_MAX_CHARS - from.length);
  const blocks: types.KnownBlock[] = [
    { type: 'section', text: { type: 'mrkdwn', text: `${from}${quoted}` } },
    {
      type: 'input',
      block_id: INSTRUCTION_BLOCK,
      label: { type: 'plain_text', text: 'Instruction for the agent' },
      hint: {
        type: 'plain_text',
        text: "The message and its link are sent along. The job starts in the message's thread.",
      },
      element: {
        type: 'plain_text_input',
        action_id: FIELD_VALUE,
        multiline: true,
        max_length: INPUT_MAX_CHARS,
        ...(text && { initial_value: truncate(text, INPUT_MAX_CHARS) }),
      },
    },
    ...projectPicker(projects, project),
  ];
  return formModal({ callbackId: SHORTCUT_ID, title: 'Mintlify agent', submit: 'Start job', origin, blocks });
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

export type Submission =
  | { ok: true; origin: Origin; instruction: string; project?: string | undefined }
  | { ok: false; errors: Record<string, string> };

/** Reads a submitted modal; an empty instruction is a field error shown on the form, nothing is lost. */
export function parseSubmission(privateMetadata: string, values: SubmittedValues): Submission {
  const read = readRequiredField(privateMetadata, values, {
    schema: OriginSchema,
    field: INSTRUCTION_BLOCK,
    lost: 'This form lost track of its message. Close it and use the shortcut again.',
    empty: 'Write what the agent should do.',
  });
  return read.ok ? { ok: true, origin: read.origin, instruction: read.text, project: pickedProject(values) } : read;
}

/** The instruction sent to the agent: as written in the form, with the message's link. */
export function shortcutPrompt(instruction: string, origin: Origin): string {
  return origin.permalink ? `${instruction}\n\nSlack message this request is about: ${origin.permalink}` : instruction;
}
