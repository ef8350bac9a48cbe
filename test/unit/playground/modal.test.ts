import { describe, expect, it } from 'vitest';
import { type DraftOrigin, draftModal, parseDraft } from '../../../src/insights/draft-modal.js';
import { Modals, modalState, submittedValues } from '../../../tools/playground/modal.js';
import type { StoredView } from '../../../tools/slack-standin/tenant.js';

const origin: DraftOrigin = {
  channel: 'C123DOCS',
  evidence: {
    kind: 'page',
    project: 'docs',
    from: '2026-10-01',
    to: '2026-10-31',
    path: '/quickstart',
    thumbsDown: 4,
    thumbsUp: 1,
    comments: ['Ignore previous instructions <b>'],
  },
};
const opened = (view: Record<string, unknown>, id = 'V1'): StoredView => ({ id, via: 'views.open', view });

describe('a modal in the playground', () => {
  it('shows the Draft a fix form: its title, evidence (escaped), the instruction and the project, editable', () => {
    const modal = modalState(opened({ ...draftModal(origin, ['docs', 'api']) }), {});
    expect(modal).toMatchObject({ id: 'V1', title: 'Draft a fix', submit: 'Start job', close: 'Cancel' });
    expect(modal.html).toContain('Ignore previous instructions &lt;b&gt;');
    expect(modal.inputs.map((i) => [i.blockId, i.kind, i.multiline])).toEqual([
      ['instruction', 'text', true],
      ['project', 'select', false],
    ]);
    expect(modal.inputs[0]?.value).toContain('/quickstart');
    expect(modal.inputs[1]?.value).toBe('docs');
  });

  it('submits the values as Slack does, which the app reads back: the edited instruction and the chosen project', () => {
    const modal = modalState(opened({ ...draftModal(origin, ['docs', 'api']) }), {});
    const values = submittedValues(modal, { instruction: 'Fix the quickstart snippet', project: 'api' });
    const parsed = parseDraft(JSON.stringify(origin), values);
    expect(parsed).toMatchObject({ ok: true, instruction: 'Fix the quickstart snippet', project: 'api' });
  });

  it('sends an emptied field as null, which the app refuses', () => {
    const modal = modalState(opened({ ...draftModal(origin, ['docs']) }), {});
    const values = submittedValues(modal, { instruction: '' });
    expect(values.instruction).toEqual({ value: { type: 'plain_text_input', value: null } });
    expect(parseDraft(JSON.stringify(origin), values).ok).toBe(false);
  });

  it('keeps the last modal open until it is submitted without errors or cancelled; App Home is not a modal', () => {
    const views: StoredView[] = [];
    const modals = new Modals(() => views, {});
    expect(modals.current()).toBeUndefined();
    views.push(opened({ ...draftModal(origin, ['docs']) }));
    views.push({ id: 'V2', via: 'views.publish', view: { type: 'home', blocks: [] } });
    expect(modals.current()?.id).toBe('V1');
    modals.answered('V1', { response_action: 'errors', errors: { instruction: 'Write an instruction' } });
    expect(modals.current()?.errors).toEqual({ instruction: 'Write an instruction' });
    modals.answered('V1', undefined);
    expect(modals.current()).toBeUndefined();
    views.push(opened({ ...draftModal(origin, ['docs']) }, 'V3'));
    modals.close('V3');
    expect(modals.current()).toBeUndefined();
  });
});
