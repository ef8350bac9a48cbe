import type { AnyMiddlewareArgs, Middleware } from '@slack/bolt';
import {
  firstEvent,
  JOB_EVENT_TYPE,
  leaveProcessing,
  MY_JOBS_LISTED,
  MY_JOBS_WORDS,
  steers,
  toIncoming,
} from '../agent/index.js';
import type { Deps } from '../deps.js';
import { decodeSlackText } from '../slack/decode.js';
import { slackErrorCode } from '../slack/errors.js';
import { type PayloadEvent, payloadOf } from '../slack/payload.js';
import type { Audience } from '../slack/reply.js';
import { findWitnessed } from '../slack/witness.js';
import { workspaceOf } from '../workspace-ref.js';
import {
  type NotConnected,
  notConnected,
  notConnectedField,
  settingsUnreadable,
  whoCanConnect,
} from './connect/messages.js';
import { CONNECT_IDS } from './connect/view.js';

/** What Slack asked for, as far as a workspace without Mintlify is concerned. */
type Request =
  /** Needs no Mintlify (App Home, connecting it, an uninstall) or is answered past the gate (a thread reply): goes on. */
  | { kind: 'pass' }
  /** A message that only a job's thread could make the bot's business: nothing to say. */
  | { kind: 'ignore' }
  /** A command: answered in its ack. */
  | { kind: 'command'; text: string }
  /** A mention, a DM, a click or a shortcut: answered privately where the person is. */
  | { kind: 'private'; audience: Audience; text: string }
  /** `my jobs` in the bot's DM: the agent lists the person's jobs when they have some (`listsJobs`), as Home does. */
  | { kind: 'jobs'; audience: Audience; text: string }
  /** A session's Stop: answered privately in its thread, and the session leaves `processing` (Slack leaves it to the app). */
  | { kind: 'stop'; audience: Audience & { threadTs: string } }
  /** A form submitted (opened before a Disconnect): answered on its `field`, the form left open with the text. */
  | { kind: 'form'; field: string }
  /** A reply in a thread the bot started: answered privately when it follows up a job there (`jobReply`). */
  | { kind: 'reply'; audience: Audience & { threadTs: string }; text: string; files: unknown[]; eventId: string };

const PASSING_EVENTS = new Set(['app_home_opened', 'app_uninstalled', 'tokens_revoked', 'team_access_revoked']);
const CONNECT_ACTIONS = new Set<string>([CONNECT_IDS.open, CONNECT_IDS.disconnect]);

/** Showing or ending a digest needs no Mintlify: a disconnected workspace can still turn its digests off. */
const DIGEST_COMMANDS = new Set(['/visitors', '/insights']);
const managesDigest = (command: string, text: string) =>
  DIGEST_COMMANDS.has(command) && /^digest(\s+off)?$/i.test(text.trim());

function requestOf(body: unknown, botUserId: string | undefined): Request {
  const payload = payloadOf(body);
  if (payload.command !== undefined) {
    const text = decodeSlackText(payload.text ?? '');
    return managesDigest(payload.command, text) ? { kind: 'pass' } : { kind: 'command', text };
  }
  if (payload.type === 'event_callback') return eventRequest(payload.event ?? {}, botUserId, payload.event_id ?? '');
  const actions = payload.actions ?? [];
  if (payload.type === 'view_submission') {
    if (payload.view?.callback_id === CONNECT_IDS.view) return { kind: 'pass' };
    const [field] = Object.keys(payload.view?.state?.values ?? {});
    if (field) return { kind: 'form', field };
  }
  if (payload.type === 'block_actions' && actions.every((a) => CONNECT_ACTIONS.has(a.action_id ?? ''))) {
    return { kind: 'pass' };
  }
  const user = payload.user?.id;
  const channel = payload.channel?.id;
  if (!user || !channel) return { kind: 'ignore' };
  const responseUrl = payload.response_url;
  return { kind: 'private', audience: { userId: user, channel, ...(responseUrl && { responseUrl }) }, text: '' };
}

function eventRequest(event: PayloadEvent, botUserId: string | undefined, eventId: string): Request {
  const type = event.type ?? '';
  if (PASSING_EVENTS.has(type)) return { kind: 'pass' };
  // Stop pressed on a job's session still shown as running (its next poll finds Mintlify disconnected).
  if (type === 'agent_session_stopped' && event.user && event.channel && event.thread_ts) {
    return { kind: 'stop', audience: { userId: event.user, channel: event.channel, threadTs: event.thread_ts } };
  }
  // A person's own new message (the agent's guard ladder), spoken to the bot: a mention, or in its DM.
  const incoming = toIncoming(event, botUserId);
  const spoken = type === 'app_mention' || (type === 'message' && event.channel_type === 'im');
  // A reply in a channel's thread is the bot's business only in a job's thread, maybe of a project disconnected
  // since: the agent tells, after the ack (handle-turn.ts). One in a thread the bot started is looked at here.
  if (incoming?.threadTs && !spoken && !incoming.mentionsBot) {
    const rootAuthor = event.parent_user_id ?? event.root?.user;
    if (!botUserId || rootAuthor !== botUserId) return { kind: 'pass' };
    const { userId, channel, threadTs, wireText, files } = incoming;
    const audience = { userId, channel, threadTs };
    return { kind: 'reply', audience, text: decodeSlackText(wireText), files, eventId };
  }
  if (!incoming || !spoken) return { kind: 'ignore' };
  const { userId, channel, threadTs, wireText } = incoming;
  const text = decodeSlackText(wireText);
  const dm = type === 'message' && MY_JOBS_WORDS.test(text);
  return { kind: dm ? 'jobs' : 'private', audience: { userId, channel, ...(threadTs && { threadTs }) }, text };
}

/**
 * Whether a reply in a thread the bot started follows up the job there (its root carries the job's metadata), by
 * the agent's rule (`steers`). Before Mintlify is connected again (installed again after a removal took the job's
 * record) or while its settings cannot be read, the agent knows no job there, so the reply is answered here; after
 * a Disconnect the agent answers it, naming the project.
 */
async function followsUpJob(deps: Deps, reply: Extract<Request, { kind: 'reply' }>, why: NotConnected) {
  if (why === 'disconnected' || !steers('own', reply, deps.config.followUps)) return false;
  const { channel, threadTs } = reply.audience;
  const ofThread = (job: Record<string, unknown>) => job.thread_ts === threadTs;
  try {
    return (await findWitnessed(deps.slack, { channel, threadTs }, JOB_EVENT_TYPE, ofThread)) !== undefined;
  } catch (error) {
    deps.log.warn('slack.thread_unreadable', { op: 'not_connected', channel, slack_error: slackErrorCode(error) });
    return false;
  }
}

/**
 * Whether `my jobs` goes on to the agent: the person started jobs here (before a Disconnect), which the store still
 * holds and lists without Mintlify. With none (or the store not answering) the gate says how to connect instead of
 * the agent's "send me an instruction", which cannot start a job here.
 */
async function listsJobs(deps: Deps, userId: string): Promise<boolean> {
  const mine = async () => {
    const refs = await deps.store.jobs.forUser(userId, MY_JOBS_LISTED);
    const records = await Promise.all(refs.map((ref) => deps.store.jobs.get(ref)));
    return records.some((record) => record?.userId === userId);
  };
  // the store guard counts the failure; the person is told how to connect.
  return mine().catch(() => false);
}

/**
 * Before a workspace connects Mintlify, `/agent`, mentions, DMs, `/visitors` (and any leftover button) get one
 * private answer: not connected yet (or any more), who can connect it, and the person's text to run again; a form
 * left open across a Disconnect is answered on its field and stays open. App Home, the connect modal, uninstalls
 * and showing or ending a digest (`/visitors digest [off]`, `/insights digest [off]`) go on, and so does a reply in a
 * channel's thread, which the agent answers when the thread is a job's (but see `followsUpJob`), and `my jobs` in the
 * bot's DM from a person with jobs (`listsJobs`). Registered only when the app serves many workspaces.
 */
export function notConnectedGate(root: Pick<Deps, 'workspaces'>): Middleware<AnyMiddlewareArgs> {
  return async (args) => {
    const request = requestOf(args.body, args.context.botUserId);
    if (request.kind === 'pass') return args.next();
    const deps = await root.workspaces.scope(workspaceOf(args.context));
    if (!deps.connection || deps.connection.settings) return args.next();
    const who = whoCanConnect(deps.connection.steward, !!deps.workspace.enterpriseId);
    // Every request but an event carries `ack`; a command's answer goes in it.
    const ack = 'ack' in args ? (args.ack as (response?: Record<string, unknown>) => Promise<void>) : undefined;
    const { unreadable, changes } = deps.connection;
    const why: NotConnected = unreadable
      ? 'unreadable'
      : changes.some((c) => c.change === 'disconnected')
        ? 'disconnected'
        : 'not_yet';
    if (request.kind === 'jobs' && (await listsJobs(deps, request.audience.userId))) return args.next();
    if (request.kind === 'reply') {
      if (!(await followsUpJob(deps, request, why))) return args.next();
      if (!(await firstEvent(deps, { eventId: request.eventId, retryNum: args.context.retryNum }))) return;
    }
    if (request.kind === 'form') {
      deps.log.info('mintlify.not_connected', { kind: request.kind, why });
      return ack?.({ response_action: 'errors', errors: { [request.field]: notConnectedField(why) } });
    }
    const text = 'text' in request ? request.text : '';
    const answer = unreadable ? settingsUnreadable(who, text) : notConnected(who, text, why === 'disconnected');
    if (request.kind === 'command') return ack?.({ response_type: 'ephemeral', ...answer });
    await ack?.();
    deps.log.info('mintlify.not_connected', { kind: request.kind, why });
    if (request.kind === 'ignore') return;
    if (request.kind === 'stop') {
      const { channel, threadTs } = request.audience;
      await leaveProcessing(deps, { channel, threadTs });
    }
    await deps.replies.privately(request.audience, answer);
  };
}
