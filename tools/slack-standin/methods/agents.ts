import type { AgentSession, SessionStatus } from '../tenant.js';
import { type Answer, type Handler, type MethodCall, missing, ok, refuse } from './answer.js';
import { hidden } from './conversations.js';

// Agent sessions (docs.slack.dev/ai/agent-sessions, agents.sessions.setStatus and .rename): one per thread, with a
// lifecycle status, a title for recall, and Slack's own Stop button while it is `processing`. Only an app declared
// as an agent (the manifest's `agent_view`) has them; thread-based sessions in channels and DMs name their thread.

/** The statuses setStatus accepts ("Acceptable values"). */
export const SESSION_STATUSES: readonly SessionStatus[] = ['active', 'processing', 'suspended', 'closed'];
/** A title: "max 200 characters" (setStatus), "1-200 characters" (rename). */
const TITLE_MAX_CHARS = 200;
/** setStatus's warning while the app is not subscribed to `agent_session_stopped` (the Stop button does nothing). */
export const UNSUBSCRIBED_WARNING = 'missing_agent_session_stopped_event_subscription';

const invalid = (message: string) => refuse('invalid_arguments', { response_metadata: { messages: [message] } });

/**
 * The thread the call names, as Slack checks it: `thread_ts` required (`thread_ts_required`: a thread-based session
 * in a channel or DM), `channel_id` too, an unknown channel `channel_not_found`, a thread root that is not there
 * `invalid_thread_ts`, a channel the bot is not in `not_authorized`; an app that is not an agent has no sessions (`feature_disabled`, Slack's "the agent tasks
 * feature is not enabled for this workspace").
 */
function placeOf(
  { args, tenant, slack }: MethodCall,
  required: string[],
): { channel: string; threadTs: string } | Answer {
  if (args.thread_ts === undefined || args.thread_ts === null) return refuse('thread_ts_required');
  const absent = ['channel_id', ...required].filter((k) => args[k] === undefined || args[k] === null);
  if (absent.length) return missing(...absent);
  if (slack.view !== 'agent_view') return refuse('feature_disabled');
  const channel = String(args.channel_id);
  const threadTs = String(args.thread_ts);
  if (!tenant.holds(channel) || hidden(tenant.channel(channel))) return refuse('channel_not_found');
  // "The caller is not a member of the specified channel."
  if (tenant.channel(channel)?.botMember === false) return refuse('not_authorized');
  if (!tenant.message(channel, threadTs)) return refuse('invalid_thread_ts');
  return { channel, threadTs };
}

const isAnswer = (x: object): x is Answer => 'body' in x;

function titleProblem(title: unknown, required: boolean): Answer | undefined {
  if (title === undefined && !required) return undefined;
  const length = typeof title === 'string' ? [...title].length : 0;
  if (typeof title === 'string' && length <= TITLE_MAX_CHARS && (length > 0 || !required)) return undefined;
  return invalid(`[ERROR] title: 1 to ${TITLE_MAX_CHARS} characters [json-pointer:/title]`);
}

/** Creates the thread's session when it has none (its title and initiator are used then only), else sets its status. */
function setStatus(call: MethodCall): Answer {
  const place = placeOf(call, ['status']);
  if (isAnswer(place)) return place;
  const { args, tenant, slack } = call;
  const status = String(args.status) as SessionStatus;
  if (!SESSION_STATUSES.includes(status)) return refuse('invalid_status');
  const problem = titleProblem(args.title, false);
  if (problem) return problem;
  const initiator = args.initiator_user_id === undefined ? undefined : String(args.initiator_user_id);
  if (initiator !== undefined && !tenant.author(initiator)) return refuse('user_not_found');
  let session = tenant.agentSession(place.channel, place.threadTs);
  if (!session) {
    session = {
      ...place,
      status,
      statuses: [],
      ...(typeof args.title === 'string' && { title: args.title }),
      ...(initiator && { initiator }),
    };
    tenant.agentSessions.push(session);
  }
  session.status = status;
  session.statuses.push(status);
  const warning = slack.subscriptions.has('agent_session_stopped') ? {} : { warning: UNSUBSCRIBED_WARNING };
  return ok({ status, ...(session.title !== undefined && { title: session.title }), ...warning });
}

/** Renames the thread's session (`session_not_found` when the thread has none). */
function rename(call: MethodCall): Answer {
  const place = placeOf(call, ['title']);
  if (isAnswer(place)) return place;
  const problem = titleProblem(call.args.title, true);
  if (problem) return problem;
  const session: AgentSession | undefined = call.tenant.agentSession(place.channel, place.threadTs);
  if (!session) return refuse('session_not_found');
  session.title = String(call.args.title);
  session.titles = [...(session.titles ?? []), session.title];
  return ok({ title: session.title });
}

export const agentMethods: Record<string, Handler> = {
  'agents.sessions.setStatus': setStatus,
  'agents.sessions.rename': rename,
};
