import type { StoredView } from '../slack-standin/tenant.js';
import type { ViewValues } from './delivery.js';
import { escapeHtml } from './html.js';
import { blocksToHtml, type RenderNames, textToHtml } from './render.js';

type Obj = Record<string, unknown>;

/** One input of a modal as the page edits it: a text field (its initial value) or a select (its initial option). */
export interface ModalInput {
  blockId: string;
  actionId: string;
  label: string;
  kind: 'text' | 'select';
  multiline: boolean;
  value: string;
}

/** The modal the app opened last, as the page shows it; its inputs are edited by the page. */
export interface ModalState {
  id: string;
  title: string;
  submit: string;
  close: string;
  /** Its blocks other than inputs, rendered. */
  html: string;
  inputs: ModalInput[];
  errors?: Record<string, string>;
}

const plain = (text: unknown) => String((text as Obj | undefined)?.text ?? '');

function input(block: Obj): ModalInput | undefined {
  const element = (block.element ?? {}) as Obj;
  const base = {
    blockId: String(block.block_id ?? ''),
    actionId: String(element.action_id ?? ''),
    label: plain(block.label),
  };
  if (element.type === 'plain_text_input') {
    return { ...base, kind: 'text', multiline: element.multiline === true, value: String(element.initial_value ?? '') };
  }
  if (element.type === 'static_select') {
    const option = (element.initial_option ?? {}) as Obj;
    return { ...base, kind: 'select', multiline: false, value: String(option.value ?? '') };
  }
  return undefined;
}

/** A modal the app opened (`views.open`/`push`/`update`), for the page. */
export function modalState(stored: StoredView, names: RenderNames): ModalState {
  const view = stored.view;
  const blocks = (Array.isArray(view.blocks) ? view.blocks : []) as Obj[];
  const shown = blocks.filter((b) => b.type !== 'input');
  const html =
    blocksToHtml(shown, names) +
    blocks
      .filter((b) => b.type === 'input' && !input(b))
      .map((b) => `<div class="unsupported">[${escapeHtml(String((b.element as Obj | undefined)?.type))}]</div>`)
      .join('');
  return {
    id: stored.id,
    title: textToHtml(view.title),
    submit: plain(view.submit) || 'Submit',
    close: plain(view.close) || 'Cancel',
    html,
    inputs: blocks.flatMap((b) => (b.type === 'input' ? (input(b) ?? []) : [])),
  };
}

/** The state Slack sends with a submission: each input's value as the person left it. */
export function submittedValues(modal: ModalState, edited: Record<string, string>): ViewValues {
  const values: ViewValues = {};
  for (const i of modal.inputs) {
    const value = edited[i.blockId] ?? i.value;
    const state =
      i.kind === 'text'
        ? { type: 'plain_text_input', value: value === '' ? null : value }
        : {
            type: 'static_select',
            selected_option: value ? { value, text: { type: 'plain_text', text: value } } : null,
          };
    values[i.blockId] = { [i.actionId]: state };
  }
  return values;
}

/** The modal in front of the page: the last one the app opened, until it is submitted or cancelled. */
export class Modals {
  readonly #views: () => readonly StoredView[];
  readonly #names: RenderNames;
  readonly #closed = new Set<string>();
  readonly #errors = new Map<string, Record<string, string>>();

  constructor(views: () => readonly StoredView[], names: RenderNames) {
    this.#views = views;
    this.#names = names;
  }

  current(): ModalState | undefined {
    const last = this.#views().findLast((v) => v.via !== 'views.publish');
    if (!last || this.#closed.has(last.id)) return undefined;
    const errors = this.#errors.get(last.id);
    return { ...modalState(last, this.#names), ...(errors && { errors }) };
  }

  close(id: string): void {
    this.#closed.add(id);
  }

  /** The app answered a submission: `response_action: errors` keeps it open with them, anything else closes it. */
  answered(id: string, ack: unknown): void {
    const body = (ack ?? {}) as Obj;
    if (body.response_action === 'errors' && typeof body.errors === 'object' && body.errors !== null) {
      this.#errors.set(id, Object.fromEntries(Object.entries(body.errors).map(([k, v]) => [k, String(v)])));
    } else if (body.response_action !== 'update' && body.response_action !== 'push') {
      this.close(id);
    }
  }
}
