import type { types } from '@slack/bolt';
import { z } from 'zod';
import { FIELD_VALUE, formModal, INPUT_MAX_CHARS, readRequiredField, type SubmittedValues } from '../slack/form.js';
import { clipEscaped, escapeMrkdwn, truncate } from '../slack/mrkdwn.js';
import { pickedProject, projectPicker } from '../slack/project-picker.js';
import { draftInstruction, EvidenceSchema, evidenceText } from './evidence.js';
import { draftCopy, errorText } from './messages.js';

/** The Draft a fix modal: the evidence shown as text, an editable instruction prepared from it, the project. */
export const DRAFT_CALLBACK = 'insights.draft_fix';
export const INSTRUCTION_BLOCK = 'instruction';

/** What the modal carries to its submission (`private_metadata`, at most 3,000 characters: the evidence fits 2,000). */
const DraftOriginSchema = z.object({ channel: z.string().min(1), evidence: EvidenceSchema });
export type DraftOrigin = z.infer<typeof DraftOriginSchema>;

/** `earlier`: what became of an earlier job for the same thing, said above the evidence. */
export function draftModal(origin: DraftOrigin, projects: readonly string[], earlier?: string): types.ModalView {
  const { evidence } = origin;
  const blocks: types.KnownBlock[] = [
    ...(earlier ? [{ type: 'context' as const, elements: [{ type: 'mrkdwn' as const, text: earlier }] }] : []),
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
        action_id: FIELD_VALUE,
        multiline: true,
        max_length: INPUT_MAX_CHARS,
        initial_value: truncate(draftInstruction(evidence), INPUT_MAX_CHARS),
      },
    },
    ...projectPicker(projects, evidence.project),
  ];
  return formModal({ callbackId: DRAFT_CALLBACK, title: 'Draft a fix', submit: 'Start job', origin, blocks });
}

/**
 * A submission that started nothing because the thing's job is already under way (`said`), the person's instruction
 * given back as plain text (a section holds 3,000 characters, the input's own limit).
 */
export function repeatedModal(said: string, instruction: string): types.ModalView {
  return {
    type: 'modal',
    title: { type: 'plain_text', text: 'Draft a fix' },
    close: { type: 'plain_text', text: 'Close' },
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: clipEscaped(said, 3000) } },
      { type: 'section', text: { type: 'plain_text', text: draftCopy.echoLabel } },
      { type: 'section', text: { type: 'plain_text', text: truncate(instruction, INPUT_MAX_CHARS), emoji: false } },
    ],
  };
}

export type DraftSubmission =
  | { ok: true; origin: DraftOrigin; instruction: string; project: string | undefined }
  | { ok: false; errors: Record<string, string> };

/** A submitted modal; an empty instruction (or lost evidence) is a field error, the form stays open. */
export function parseDraft(privateMetadata: string, values: SubmittedValues): DraftSubmission {
  const read = readRequiredField(privateMetadata, values, {
    schema: DraftOriginSchema,
    field: INSTRUCTION_BLOCK,
    lost: errorText.formLost,
    empty: errorText.emptyInstruction,
  });
  return read.ok ? { ok: true, origin: read.origin, instruction: read.text, project: pickedProject(values) } : read;
}
