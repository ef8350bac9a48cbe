import type {
  AllMiddlewareArgs,
  BlockAction,
  SlackActionMiddlewareArgs,
  SlackViewMiddlewareArgs,
  ViewSubmitAction,
} from '@slack/bolt';
import type { Deps } from '../../deps.js';
import type { MintlifyClient } from '../../mintlify/client.js';
import { slackErrorCode } from '../../slack/errors.js';
import { installationOf } from '../../workspace-ref.js';
import { checkWithService, type FieldErrors, validate } from '../connect/check.js';
import { fieldErrors, homeNotes, replacedNotice, whoCanConnect } from '../connect/messages.js';
import { mayManage } from '../connect/permission.js';
import { connectModal, readForm } from '../connect/view.js';
import { type ConnectionChange, routedOf } from '../connection.js';
import { recordChange } from '../connection-log.js';
import { type SealedRecords, sealedRecords } from '../sealed.js';
import { fingerprint, type Secrets } from '../secrets.js';
import { deleteSettings, readSettings, saveSettings } from '../settings.js';

/** What the connect doors need beyond a workspace's deps: the sealing keys and a client to try a candidate key. */
export interface ConnectOptions {
  secrets: Secrets;
  /** A Mintlify client for a key not saved yet: short deadline, no retries (Slack wants an answer within 3 s). */
  checkClient(apiKey: string): MintlifyClient;
  /** Publishes a person's App Home (the composition gives App Home's: tenants do not stand on `home/`). */
  publishHome(deps: Deps, userId: string): Promise<void>;
}

type ActionArgs = SlackActionMiddlewareArgs<BlockAction> & AllMiddlewareArgs;
type SubmitArgs = SlackViewMiddlewareArgs<ViewSubmitAction> & AllMiddlewareArgs;

const records = (deps: Deps, options: ConnectOptions): SealedRecords =>
  sealedRecords(deps.store, options.secrets, installationOf(deps.workspace), deps.log);

/** Home shows what changed at once (the person's own tab; others see it when they next open theirs). */
async function republish(deps: Deps, options: Pick<ConnectOptions, 'publishHome'>, userId: string): Promise<void> {
  await options
    .publishHome(await deps.workspaces.scope(deps.workspace), userId)
    .catch((error) => deps.log.warn('home.publish_failed', { op: 'connect', error }));
}

/**
 * A change made: recorded (the person who made it is the connection's steward now), and the person whose
 * connection it was told by DM when it was someone else.
 */
async function recorded(deps: Deps, change: ConnectionChange, previous: string | undefined): Promise<void> {
  await recordChange(deps.store, change).catch((error) =>
    deps.log.error('store.unavailable', { op: 'connect.record', error }),
  );
  if (previous && previous !== change.user) {
    const orgWide = !!deps.workspace.enterpriseId;
    await deps.replies.direct(previous, replacedNotice(change.user, change, orgWide));
  }
}

/** "Connect Mintlify" (or "Change") in App Home: the modal, for the people who may use it. */
export async function openConnect(deps: Deps, { ack, body }: ActionArgs): Promise<void> {
  await ack();
  const userId = body.user.id;
  if (!(await mayManage(deps, userId))) return refused(deps, userId, 'connect');
  try {
    await deps.slack.views.open({ trigger_id: body.trigger_id, view: connectModal(deps.connection?.settings) });
  } catch (error) {
    const code = slackErrorCode(error);
    deps.log.warn('slack.views_open_failed', { op: 'connect', slack_error: code });
    await deps.replies.direct(userId, homeNotes.formNotOpened(code));
  }
}

/** A click by someone who may not manage the connection (a Home drawn before their rights changed): said by DM. */
async function refused(deps: Deps, userId: string, op: 'connect' | 'disconnect'): Promise<void> {
  deps.log.info('mintlify.connect_refused', { user: userId, op });
  const who = whoCanConnect(deps.connection?.steward, !!deps.workspace.enterpriseId);
  await deps.replies.direct(userId, homeNotes.notAllowed(who));
}

/**
 * The modal submitted: the values checked, then checked against Mintlify with the key given, then saved sealed,
 * all before the answer to Slack, so a refusal comes back as an error on its field and the modal stays open.
 */
export const submitConnect =
  (options: ConnectOptions) =>
  async (deps: Deps, { ack, body, view }: SubmitArgs) => {
    const userId = body.user.id;
    const refuse = (errors: FieldErrors) => ack({ response_action: 'errors', errors });
    if (!deps.connection || !(await mayManage(deps, userId))) {
      const who = whoCanConnect(deps.connection?.steward, !!deps.workspace.enterpriseId);
      return refuse({ project: fieldErrors.notAllowed(who) });
    }
    const sealed = records(deps, options);
    // unreadable settings are replaced by the new ones (the store guard counts a store failure).
    const current = await readSettings(sealed).catch(() => undefined);
    const form = validate(readForm(view.state.values), current?.apiKey);
    if (!form.ok) return refuse(form.errors);
    const checked = await checkWithService(options.checkClient(form.value.apiKey), form.value, deps.now());
    if (!checked.ok) return refuse(checked.errors);
    // Checked with Mintlify for up to seconds: a change or a disconnect saved meanwhile is not silently undone (settings
    // unreadable now: the save below says what failed).
    const latest = await readSettings(sealed).catch(() => current);
    if (latest?.changedAt !== current?.changedAt) return refuse({ api_key: fieldErrors.changedMeanwhile });
    try {
      await saveSettings(sealed, { ...checked.value, changedBy: userId, changedAt: deps.now() });
    } catch (error) {
      deps.log.error('store.unavailable', { op: 'connect.save', error });
      return refuse({ api_key: fieldErrors.storeDown });
    }
    await ack();
    const keyChanged = current?.apiKey !== checked.value.apiKey;
    const made = { user: userId, at: deps.now(), project: checked.value.projectId, ...routedOf(checked.value) };
    const change: ConnectionChange = current
      ? { change: 'changed', ...made, keyChanged }
      : { change: 'connected', ...made };
    deps.log.info('mintlify.connection_changed', {
      change: change.change,
      user: userId,
      project: checked.value.projectId,
      routes: Object.keys(checked.value.channelProjects).length,
      key: fingerprint(checked.value.apiKey),
      key_changed: keyChanged,
    });
    await recorded(deps, change, current?.changedBy);
    await republish(deps, options, userId);
  };

/** "Disconnect" (confirmed in Slack's dialog): the settings, key included, are deleted. */
export const disconnect =
  (options: Pick<ConnectOptions, 'publishHome'>) =>
  async (deps: Deps, { ack, body }: ActionArgs): Promise<void> => {
    await ack();
    const userId = body.user.id;
    if (!(await mayManage(deps, userId))) return refused(deps, userId, 'disconnect');
    try {
      await deleteSettings(deps.store);
    } catch (error) {
      deps.log.error('store.unavailable', { op: 'connect.disconnect', error });
      await deps.replies.direct(userId, homeNotes.notDisconnected);
      return;
    }
    deps.log.info('mintlify.connection_changed', { change: 'disconnected', user: userId });
    const connected = deps.connection?.settings;
    if (connected) {
      // The projects it ends, routes included (changes recorded before routes were kept name only the default).
      const ended = { project: connected.projectId, ...routedOf(connected) };
      await recorded(deps, { change: 'disconnected', user: userId, at: deps.now(), ...ended }, connected.changedBy);
    }
    await republish(deps, options, userId);
  };
