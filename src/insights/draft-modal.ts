import type { types } from '@slack/bolt';
import { z } from 'zod';
import { clipEscaped, escapeMrkdwn, truncate } from '../slack/mrkdwn.js';
import { pickedProject, projectPicker } from '../slack/project-picker.js';
import { draftInstruction, EvidenceSchema, evidenceText } from './evidence.js';
import { errorText } from './messages.js';

/** The Draft a fix modal: the evidence shown as text, an editable instruction prepared from it, the project. */
export const DRAFT_CALLBACK = 'insights.draft_fix';
export const INSTRUCTION_BLOCK = 'instruction';
const VALUE = 'value';
/** Slack's limit on a plain_text_input's value. */
const INPUT_MAX_CHARS = 3_000;

/** What the modal carries to its submission (`private_metadata`, at most 3,000 characters: the evidence fits 2,000). */
const DraftOriginSchema = z.object({ channel: z.string().min(1), evidence: EvidenceSchema });
export type DraftOrigin = z.infer<typeof DraftOriginSchema>;

export function draftModal(origin: DraftOrigin, projects: readonly string[]): types.ModalView {
  const { evidence } = origin;
  const blocks: types.KnownBlock[] = [
    {
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: clipEscaped(
          `*Evidence from readers* (sent along, quoted as evidence, never as orders):\n${escapeMrkdwn(evidenceText(evidence))}`,
          3000,
        ),
      },
    },
    {
      type: 'input',
      block_id: INSTRUCTION_BLOCK,
      label: { type: 'plain_text', text: 'Instruction for the agent' },
      hint: {
        type: 'plain_text',
        text: 'The evidence above goes with it. The job starts in this channel, like /agent.',
      },
      element: {
        type: 'plain_text_input',
        action_id: VALUE,
        multiline: true,
        max_length: INPUT_MAX_CHARS,
        initial_value: truncate(draftInstruction(evidence), INPUT_MAX_CHARS),
      },
    },
    ...projectPicker(projects, evidence.project),
  ];
  return {
    type: 'modal',
    callback_id: DRAFT_CALLBACK,
    title: { type: 'plain_text', text: 'Draft a fix' },
    submit: { type: 'plain_text', text: 'Start job' },
    close: { type: 'plain_text', text: 'Cancel' },
    private_metadata: JSON.stringify(origin),
    blocks,
  };
}

type StateValues = Record<
  string,
  Record<string, { value?: string | null; selected_option?: { value: string } | null }>
>;

export type DraftSubmission =
  | { ok: true; origin: DraftOrigin; instruction: string; project: string | undefined }
  | { ok: false; errors: Record<string, string> };

/** A submitted modal; an empty instruction (or lost evidence) is a field error, the form stays open. */
export function parseDraft(privateMetadata: string, values: StateValues): DraftSubmission {
  let origin: DraftOrigin;
  try {
    origin = DraftOriginSchema.parse(JSON.parse(privateMetadata));
  } catch {
    return { ok: false, errors: { [INSTRUCTION_BLOCK]: errorText.formLost } };
  }
  const instruction = values[INSTRUCTION_BLOCK]?.[VALUE]?.value?.trim() ?? '';
  if (!instruction) return { ok: false, errors: { [INSTRUCTION_BLOCK]: errorText.emptyInstruction } };
  return { ok: true, origin, instruction, project: pickedProject(values) };
}
