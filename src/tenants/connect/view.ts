import type { types } from '@slack/bolt';
import { FIELD_VALUE, type SubmittedValues } from '../../slack/form.js';
import type { Connection, PublicSettings } from '../connection.js';
import { home, modal, whoCanConnect } from './messages.js';

/** The ids Slack sends back: App Home's buttons, the modal and its fields (each field's `block_id`). */
export const CONNECT_IDS = {
  open: 'mintlify_connect_open',
  disconnect: 'mintlify_connect_remove',
  view: 'mintlify_connect',
} as const;
export const FIELDS = { apiKey: 'api_key', project: 'project', routes: 'routes', docsUrl: 'docs_url' } as const;
export type Field = (typeof FIELDS)[keyof typeof FIELDS];

const button = (text: string, action_id: string, extra: Partial<types.Button> = {}): types.Button => ({
  type: 'button',
  text: { type: 'plain_text', text },
  action_id,
  ...extra,
});

/** How many of the latest changes App Home lists. */
export const CHANGES_SHOWN = 5;

/**
 * App Home's Mintlify section: the people who may manage it (`permission.ts`) see what is connected (the key as
 * its fingerprint) and the buttons; everyone else sees the project, or who can connect it. Everyone sees the latest
 * changes (who, when, which project).
 */
export function connectionSection(connection: Connection, canManage: boolean, orgWide = false): types.KnownBlock[] {
  const { settings, steward, changes } = connection;
  const who = whoCanConnect(steward, orgWide);
  const text = settings
    ? home.connected(settings, canManage)
    : connection.unreadable
      ? home.unreadable(canManage ? 'you' : who)
      : canManage
        ? home.notConnected
        : home.notConnectedAsk(who);
  const latest = changes
    .slice(-CHANGES_SHOWN)
    .reverse()
    .map((c) => home.changeLine(c));
  const blocks: types.KnownBlock[] = [
    { type: 'header', text: { type: 'plain_text', text: home.title } },
    { type: 'section', text: { type: 'mrkdwn', text } },
    ...(latest.length
      ? [
          {
            type: 'context' as const,
            elements: [{ type: 'mrkdwn' as const, text: [home.changesTitle, ...latest].join('\n') }],
          },
        ]
      : []),
  ];
  if (!canManage) return [...blocks, { type: 'divider' }];
  const elements = settings
    ? [
        button(home.change, CONNECT_IDS.open),
        button(home.disconnect, CONNECT_IDS.disconnect, {
          style: 'danger',
          confirm: {
            title: { type: 'plain_text', text: home.confirmTitle },
            text: { type: 'plain_text', text: home.confirmText },
            confirm: { type: 'plain_text', text: home.disconnect },
            deny: { type: 'plain_text', text: 'Cancel' },
            style: 'danger',
          },
        }),
      ]
    : [button(home.connect, CONNECT_IDS.open, { style: 'primary' })];
  return [...blocks, { type: 'actions', elements }, { type: 'divider' }];
}

const input = (
  block_id: Field,
  label: string,
  hint: string,
  element: Partial<types.PlainTextInput>,
  optional = false,
): types.InputBlock => ({
  type: 'input',
  block_id,
  optional,
  label: { type: 'plain_text', text: label },
  hint: { type: 'plain_text', text: hint },
  element: { type: 'plain_text_input', action_id: FIELD_VALUE, ...element },
});

/** Routes as the modal shows them: one `channel:project` per line. */
export const routesText = (routes: Record<string, string>) =>
  Object.entries(routes)
    .map(([channel, project]) => `${channel}:${project}`)
    .join('\n');

/**
 * The one modal that asks for the key and the project (and routes). When changing, the project and routes are
 * filled in and the key may be left empty to keep it: the key itself is never put in a view.
 */
export function connectModal(current?: PublicSettings): types.ModalView {
  const routes = current && routesText(current.channelProjects);
  return {
    type: 'modal',
    callback_id: CONNECT_IDS.view,
    title: { type: 'plain_text', text: modal.title },
    submit: { type: 'plain_text', text: modal.submit },
    close: { type: 'plain_text', text: 'Cancel' },
    blocks: [
      input(
        FIELDS.apiKey,
        modal.keyLabel,
        current ? modal.keyHintKeep(current.fingerprint) : modal.keyHint,
        { placeholder: { type: 'plain_text', text: 'mint_…' } },
        !!current,
      ),
      input(FIELDS.project, modal.projectLabel, modal.projectHint, {
        ...(current && { initial_value: current.projectId }),
      }),
      input(
        FIELDS.routes,
        modal.routesLabel,
        modal.routesHint,
        { multiline: true, ...(routes && { initial_value: routes }) },
        true,
      ),
      input(
        FIELDS.docsUrl,
        modal.docsLabel,
        modal.docsHint,
        { ...(current?.docsUrl && { initial_value: current.docsUrl }) },
        true,
      ),
    ],
  };
}

/** The modal's values as typed (trimmed; empty is left out). */
export type Form = Partial<Record<Field, string>>;

export function readForm(values: SubmittedValues): Form {
  const form: Form = {};
  for (const field of Object.values(FIELDS)) {
    const value = values[field]?.[FIELD_VALUE]?.value?.trim();
    if (value) form[field] = value;
  }
  return form;
}
