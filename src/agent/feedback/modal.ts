import type { types } from '@slack/bolt';
import { z } from 'zod';
import { FeedbackRefSchema } from './buttons.js';

/** The "What went wrong?" modal a 👎 opens, and its submission. */
export const FEEDBACK_MODAL = 'agent.feedback_modal';
export const WHAT_WENT_WRONG = 'what_went_wrong';
const VALUE = 'value';
/** Slack's limit on a plain_text_input's length. */
const INPUT_MAX_CHARS = 3_000;

/** What the modal carries from the click to its submission (`private_metadata`): the round, and the outcome's ts. */
const ModalMetadataSchema = FeedbackRefSchema.omit({ vote: true }).extend({ messageTs: z.string().min(1) });
export type FeedbackOrigin = z.infer<typeof ModalMetadataSchema>;

export function feedbackModal(origin: FeedbackOrigin): types.ModalView {
  return {
    type: 'modal',
    callback_id: FEEDBACK_MODAL,
    title: { type: 'plain_text', text: 'What went wrong?' },
    submit: { type: 'plain_text', text: 'Send as follow-up' },
    close: { type: 'plain_text', text: 'Cancel' },
    private_metadata: JSON.stringify(origin),
    blocks: [
      {
        type: 'input',
        block_id: WHAT_WENT_WRONG,
        label: { type: 'plain_text', text: 'Tell the agent what to change' },
        hint: {
          type: 'plain_text',
          text: 'Sent to the job as a follow-up, as a reply in its thread would be; it counts in the hourly follow-ups.',
        },
        element: { type: 'plain_text_input', action_id: VALUE, multiline: true, max_length: INPUT_MAX_CHARS },
      },
    ],
  };
}

type StateValues = Record<string, Record<string, { value?: string | null }>>;

export type FeedbackSubmission =
  | { ok: true; origin: FeedbackOrigin; text: string }
  | { ok: false; errors: Record<string, string> };

/** The submitted text and the round it is about; a field error when the text is empty or the form lost its job. */
export function parseFeedbackSubmission(privateMetadata: string, values: StateValues): FeedbackSubmission {
  let origin: FeedbackOrigin;
  try {
    origin = ModalMetadataSchema.parse(JSON.parse(privateMetadata));
  } catch {
    return {
      ok: false,
      errors: { [WHAT_WENT_WRONG]: 'This form lost track of its job. Close it and click 👎 again.' },
    };
  }
  const text = values[WHAT_WENT_WRONG]?.[VALUE]?.value?.trim() ?? '';
  if (!text) return { ok: false, errors: { [WHAT_WENT_WRONG]: 'Write what went wrong, for the agent.' } };
  return { ok: true, origin, text };
}
