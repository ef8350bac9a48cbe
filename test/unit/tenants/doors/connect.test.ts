import { randomBytes } from 'node:crypto';
import type {
  AllMiddlewareArgs,
  BlockAction,
  SlackActionMiddlewareArgs,
  SlackViewMiddlewareArgs,
  ViewSubmitAction,
} from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { publishHome } from '../../../../src/home/publish.js';
import { keys } from '../../../../src/store/keys.js';
import { CONNECT_IDS } from '../../../../src/tenants/connect/view.js';
import { disconnect, openConnect, submitConnect } from '../../../../src/tenants/doors/connect.js';
import { sealedRecords } from '../../../../src/tenants/sealed.js';
import { createSecrets } from '../../../../src/tenants/secrets.js';
import { readSettings, saveSettings } from '../../../../src/tenants/settings.js';
import { installationOf } from '../../../../src/workspace-ref.js';
import { blockAction, interaction } from '../../../fixtures/slack.js';
import { TEST_API_KEY } from '../../../support/test-app.js';
import { recordingAck, useAgentUnit } from '../../agent/support.js';

const INSTALLER = 'U123ALICE';
const MEMBER = 'U456BOB';
const secrets = createSecrets(randomBytes(32));

type ActionArgs = SlackActionMiddlewareArgs<BlockAction> & AllMiddlewareArgs;
type SubmitArgs = SlackViewMiddlewareArgs<ViewSubmitAction> & AllMiddlewareArgs;

/** The connect doors on App Home's buttons and the modal, for a workspace that installed the app (OAuth mode). */
describe('the Mintlify connect doors', () => {
  const unit = useAgentUnit();
  const deps = () => ({
    ...unit().deps,
    connection: { steward: { userId: INSTALLER, as: 'installer' as const }, changes: [] },
  });
  const options = () => ({ secrets, checkClient: () => unit().deps.mintlify, publishHome });
  const records = () =>
    sealedRecords(unit().deps.store, secrets, installationOf(unit().deps.workspace), unit().deps.log);

  const click = (userId: string, actionId: string) => {
    const { ack, calls } = recordingAck();
    const body = { ...blockAction(actionId, ''), user: { id: userId } };
    return { args: { ack, body } as unknown as ActionArgs, acks: calls };
  };
  const submit = (userId: string, form: Record<string, string>) => {
    const { ack, calls } = recordingAck();
    const values = Object.fromEntries(Object.entries(form).map(([field, value]) => [field, { value: { value } }]));
    const view = { callback_id: CONNECT_IDS.view, state: { values } };
    const body = { ...interaction('view_submission'), user: { id: userId }, view };
    return { args: { ack, body, view } as unknown as SubmitArgs, acks: calls };
  };

  it('opens the form for the person who installed the app, and for nobody else', async () => {
    const member = click(MEMBER, CONNECT_IDS.open);
    await openConnect(deps(), member.args);
    expect(member.acks).toHaveLength(1);
    expect(unit().slack.callsTo('views.open')).toHaveLength(0);
    expect(unit().logs.text()).toContain('"event":"mintlify.connect_refused"');

    await openConnect(deps(), click(INSTALLER, CONNECT_IDS.open).args);
    expect(unit().slack.callsTo('views.open')).toHaveLength(1);
  });

  it('answers a wrong field on the form itself, before asking the service, and saves nothing', async () => {
    const { args, acks } = submit(INSTALLER, { api_key: 'not-a-key', project: 'proj_test' });
    await submitConnect(options())(deps(), args);
    expect(acks).toEqual([{ response_action: 'errors', errors: { api_key: expect.any(String) } }]);
    expect(JSON.stringify(acks)).not.toContain('not-a-key');
    expect(unit().sim.requests).toEqual([]);
    expect(await readSettings(records())).toBeUndefined();
  });

  it('refuses a submission from someone who may not connect, on the form', async () => {
    const { args, acks } = submit(MEMBER, { api_key: TEST_API_KEY, project: 'proj_test' });
    await submitConnect(options())(deps(), args);
    expect(acks).toEqual([{ response_action: 'errors', errors: { project: expect.stringContaining(INSTALLER) } }]);
  });

  it('checks a good form with the service, saves it sealed, closes the form and shows Home again', async () => {
    const { args, acks } = submit(INSTALLER, { api_key: TEST_API_KEY, project: 'proj_test' });
    await submitConnect(options())(deps(), args);
    expect(acks).toEqual([undefined]);
    expect(await readSettings(records())).toMatchObject({ apiKey: TEST_API_KEY, projectId: 'proj_test' });
    expect(JSON.stringify(await unit().deps.store.kv.get(keys.mintlifySettings()))).not.toContain(TEST_API_KEY);
    expect(unit().slack.views).toEqual([expect.objectContaining({ via: 'views.publish', user_id: INSTALLER })]);
    expect(unit().logs.text()).not.toContain(TEST_API_KEY);
  });

  it('disconnects for the installer (the key is deleted), not for a member', async () => {
    await saveSettings(records(), {
      apiKey: TEST_API_KEY,
      projectId: 'proj_test',
      channelProjects: {},
      changedBy: INSTALLER,
      changedAt: 0,
    });
    await disconnect(options())(deps(), click(MEMBER, CONNECT_IDS.disconnect).args);
    expect(await readSettings(records())).toBeDefined();
    await disconnect(options())(deps(), click(INSTALLER, CONNECT_IDS.disconnect).args);
    expect(await readSettings(records())).toBeUndefined();
  });
});
