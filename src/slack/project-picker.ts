import type { types } from '@slack/bolt';
import { FIELD_VALUE, type SubmittedValues } from './form.js';
import { truncate } from './mrkdwn.js';

/** The picker's input block and its element: a submitted form names the project at `values.project.value`. */
export const PROJECT_BLOCK = 'project';

/** Slack's limit on a static_select's options. */
const SELECT_MAX_OPTIONS = 100;

/** The projects the picker offers, in order: at most Slack's limit, the preset one always among them. */
function pickable(projects: readonly string[], preset: string): readonly string[] {
  const first = projects.slice(0, SELECT_MAX_OPTIONS);
  return first.includes(preset) ? first : [...first.slice(0, -1), preset];
}

const option = (project: string) => ({
  text: { type: 'plain_text' as const, text: truncate(project, 75) },
  value: project,
});

/** A form's "Mintlify project" picker, `preset` chosen; none where there is one project to pick. */
export function projectPicker(projects: readonly string[], preset: string): types.InputBlock[] {
  if (projects.length <= 1) return [];
  return [
    {
      type: 'input',
      block_id: PROJECT_BLOCK,
      label: { type: 'plain_text', text: 'Mintlify project' },
      element: {
        type: 'static_select',
        action_id: FIELD_VALUE,
        options: pickable(projects, preset).map(option),
        initial_option: option(preset),
      },
    },
  ];
}

/** The project a submitted form's picker names, if it had one. */
export const pickedProject = (values: SubmittedValues): string | undefined =>
  values[PROJECT_BLOCK]?.[FIELD_VALUE]?.selected_option?.value;
