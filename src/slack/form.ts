import type { types } from '@slack/bolt';
import type { z } from 'zod';

/** Every form field's element has this `action_id`: a submitted field is at `values[block_id].value`. */
export const FIELD_VALUE = 'value';
/** Slack's limit on a plain_text_input's length and initial value. */
export const INPUT_MAX_CHARS = 3_000;

/** What a submitted form's `view.state.values` holds for its text fields and pickers. */
export type SubmittedValues = Record<
  string,
  Record<string, { value?: string | null; selected_option?: { value: string } | null }>
>;

export interface FormModal {
  callbackId: string;
  title: string;
  /** The submit button's words. */
  submit: string;
  /** What the submission needs to know of where the form was opened (`private_metadata`, at most 3,000 characters). */
  origin: unknown;
  blocks: types.KnownBlock[];
}

/** A form that starts something: its submit button, Cancel, and its origin carried to the submission. */
export function formModal({ callbackId, title, submit, origin, blocks }: FormModal): types.ModalView {
  return {
    type: 'modal',
    callback_id: callbackId,
    title: { type: 'plain_text', text: title },
    submit: { type: 'plain_text', text: submit },
    close: { type: 'plain_text', text: 'Cancel' },
    private_metadata: JSON.stringify(origin),
    blocks,
  };
}

export type FieldReading<O> = { ok: true; origin: O; text: string } | { ok: false; errors: Record<string, string> };

export interface RequiredField<S extends z.ZodType> {
  /** The origin's schema (`formModal`'s `origin`). */
  schema: S;
  /** The text field's `block_id`: where either error is shown. */
  field: string;
  /** The error when the origin is unreadable: the form cannot do its work, the person opens it again. */
  lost: string;
  /** The error when the field is left empty. */
  empty: string;
}

/**
 * A submitted form's origin and its one required text field (trimmed). Either missing is an error on the field, so
 * the form stays open with what the person typed.
 */
export function readRequiredField<S extends z.ZodType>(
  privateMetadata: string,
  values: SubmittedValues,
  { schema, field, lost, empty }: RequiredField<S>,
): FieldReading<z.infer<S>> {
  let origin: z.infer<S>;
  try {
    origin = schema.parse(JSON.parse(privateMetadata));
  } catch {
    return { ok: false, errors: { [field]: lost } };
  }
  const text = values[field]?.[FIELD_VALUE]?.value?.trim() ?? '';
  if (!text) return { ok: false, errors: { [field]: empty } };
  return { ok: true, origin, text };
}
