import type { AnyMiddlewareArgs, Middleware } from '@slack/bolt';
import { toIncoming } from '../agent/index.js';
import type { Deps } from '../deps.js';
import { decodeSlackText } from '../slack/decode.js';
import type { Audience } from '../slack/reply.js';
import { workspaceOf } from '../workspace.js';
import { notConnected, settingsUnreadable, whoCanConnect } from './connect/messages.js';
import { CONNECT_IDS } from './connect/view.js';

/** What Slack asked for, as far as a workspace without Mintlify is concerned. */
type Request =
  /** Needs no Mintlify (App Home, connecting it, an uninstall): goes on. */
  | { kind: 'pass' }
  /** A message that only a job's thread could make the bot's business: nothing to say. */
  | { kind: 'ignore' }
  /** A command: answered in its ack. */
  | { kind: 'command'; text: string }
  /** A mention, a DM, a click or a shortcut: answered privately where the person is. */
  | { kind: 'private'; audience: Audience; text: string };

const PASSING_EVENTS = new Set(['app_home_opened', 'app_uninstalled', 'tokens_revoked', 'team_access_revoked']);
const CONNECT_ACTIONS = new Set<string>([CONNECT_IDS.open, CONNECT_IDS.disconnect]);
const str = (value: unknown) => (typeof value === 'string' ? value : '');

function requestOf(body: Record<string, unknown>, botUserId: string | undefined): Request {
  if (typeof body.command === 'string') return { kind: 'command', text: decodeSlackText(str(body.text)) };
  if (body.type === 'event_callback') return eventRequest((body.event ?? {}) as Record<string, unknown>, botUserId);
  const view = body.view as { callback_id?: unknown } | undefined;
  const actions = (body.actions ?? []) as { action_id?: unknown }[];
  if (body.type === 'view_submission' && view?.callback_id === CONNECT_IDS.view) return { kind: 'pass' };
  if (body.type === 'block_actions' && actions.every((a) => CONNECT_ACTIONS.has(str(a.action_id)))) {
    return { kind: 'pass' };
  }
  const user = str((body.user as { id?: unknown } | undefined)?.id);
  const channel = str((body.channel as { id?: unknown } | undefined)?.id);
  if (!user || !channel) return { kind: 'ignore' };
  const responseUrl = str(body.response_url);
  return { kind: 'private', audience: { userId: user, channel, ...(responseUrl && { responseUrl }) }, text: '' };
}

function eventRequest(event: Record<string, unknown>, botUserId: string | undefined): Request {
  const type = str(event.type);
  if (PASSING_EVENTS.has(type)) return { kind: 'pass' };
  // A person's own new message (the agent's guard ladder), spoken to the bot: a mention, or in its DM.
  const incoming = toIncoming(event, botUserId);
  const spoken = type === 'app_mention' || (type === 'message' && event.channel_type === 'im');
  if (!incoming || !spoken) return { kind: 'ignore' };
  const { userId, channel, threadTs, wireText } = incoming;
  return {
    kind: 'private',
    audience: { userId, channel, ...(threadTs && { threadTs }) },
    text: decodeSlackText(wireText),
  };
}

/**
 * Before a workspace connects Mintlify, `/agent`, mentions, DMs, `/visitors` (and any leftover button) get one
 * private answer: not connected yet, who can connect it, and the person's text to run again. App Home, the
 * connect modal and uninstalls go on. Registered only when the app serves many workspaces.
 */
export function notConnectedGate(root: Pick<Deps, 'workspaces'>): Middleware<AnyMiddlewareArgs> {
  return async (args) => {
    const request = requestOf(args.body as unknown as Record<string, unknown>, args.context.botUserId);
    if (request.kind === 'pass') return args.next();
    const deps = await root.workspaces.scope(workspaceOf(args.context));
    if (!deps.connection || deps.connection.settings) return args.next();
    const who = whoCanConnect(deps.connection.steward, !!deps.workspace.enterpriseId);
    // Every request but an event carries `ack`; a command's answer goes in it.
    const ack = 'ack' in args ? (args.ack as (response?: Record<string, unknown>) => Promise<void>) : undefined;
    const text = request.kind === 'ignore' ? '' : request.text;
    const { unreadable } = deps.connection;
    const answer = unreadable ? settingsUnreadable(who, text) : notConnected(who, text);
    if (request.kind === 'command') return ack?.({ response_type: 'ephemeral', ...answer });
    await ack?.();
    deps.log.info('mintlify.not_connected', { kind: request.kind, ...(unreadable && { unreadable }) });
    if (request.kind === 'private') await deps.replies.privately(request.audience, answer);
  };
}
