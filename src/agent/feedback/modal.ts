import type { types } from '@slack/bolt';
import { z } from 'zod';
import {
  FIELD_VALUE,
  type FieldReading,
  formModal,
  INPUT_MAX_CHARS,
  readRequiredField,
  type SubmittedValues,
} from '../../slack/form.js';
import { FeedbackRefSchema } from './buttons.js';

/** The "What went wrong?" modal a 👎 opens, and its submission. */
export const FEEDBACK_MODAL = 'agent.feedback_modal';
export const WHAT_WENT_WRONG = 'what_went_wrong';

/** What the modal carries from the click to its submission (`private_metadata`): the round, and the outcome's ts. */
const ModalMetadataSchema = FeedbackRefSchema.omit({ vote: true }).extend({ messageTs: z.string().min(1) });
export type FeedbackOrigin = z.infer<typeof ModalMetadataSchema>;

export function feedbackModal(origin: FeedbackOrigin): types.ModalView {
  return formModal({
    callbackId: FEEDBACK_MODAL,
    title: 'What went wrong?',
    submit: 'Send as follow-up',
    origin,
    blocks: [
      {
        type: 'input',
        block_id: WHAT_WENT_WRONG,
        label: { type: 'plain_text', text: 'Tell the agent what to change' },
        hint: {
          type: 'plain_text',
          text: 'Sent to the job as a follow-up, as a reply in its thread would be; it counts in the hourly follow-ups.',
        },
        element: { type: 'plain_text_input', action_id: FIELD_VALUE, multiline: true, max_length: INPUT_MAX_CHARS },
      },
    ],
  });
}

export type FeedbackSubmission = FieldReading<FeedbackOrigin>;

/** The submitted text and the round it is about; a field error when the text is empty or the form lost its job. */
export function parseFeedbackSubmission(privateMetadata: string, values: SubmittedValues): FeedbackSubmission {
  return readRequiredField(privateMetadata, values, {
    schema: ModalMetadataSchema,
    field: WHAT_WENT_WRONG,
    lost: 'This form lost track of its job. Close it and click 👎 again.',
    empty: 'Write what went wrong, for the agent.',
  });
}
