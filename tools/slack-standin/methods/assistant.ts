import type { AssistantThread } from '../tenant.js';
import { type Answer, type Handler, type MethodCall, missing, ok, refuse, text } from './answer.js';

/**
 * 1 to 10 loading messages of 1 to 50 characters each (setStatus reference), and up to four suggested prompts
 * (setSuggestedPrompts).
 */
const MAX_LOADING_MESSAGES = 10;
const MAX_LOADING_MESSAGE_CHARS = 50;
const MAX_PROMPTS = 4;

/**
 * The thread the call names, validated as Slack does: `channel_id` and `thread_ts` required, an unknown channel is
 * `channel_not_found`, a thread that is not there `invalid_thread_ts`.
 */
function threadOf({ args, tenant }: MethodCall, required: string[]): AssistantThread | Answer {
  const absent = ['channel_id', 'thread_ts', ...required].filter((k) => args[k] === undefined || args[k] === null);
  if (absent.length) return missing(...absent);
  const channel = String(args.channel_id);
  const threadTs = String(args.thread_ts);
  if (!tenant.holds(channel)) return refuse('channel_not_found');
  const thread = tenant.assistantThread(channel, threadTs);
  if (thread) return thread;
  // setStatus also works in a channel thread the app is in (chat:write, changelog 2026-03-05).
  if (!tenant.message(channel, threadTs)) return refuse('invalid_thread_ts');
  const opened: AssistantThread = { userId: '', channel, threadTs, context: {}, statuses: [] };
  tenant.assistantThreads.push(opened);
  return opened;
}

const isAnswer = (x: AssistantThread | Answer): x is Answer => 'body' in x;

function setStatus(call: MethodCall): Answer {
  const thread = threadOf(call, ['status']);
  if (isAnswer(thread)) return thread;
  const { args } = call;
  const loading = args.loading_messages;
  const loadingOk =
    Array.isArray(loading) &&
    loading.length >= 1 &&
    loading.length <= MAX_LOADING_MESSAGES &&
    loading.every((m) => typeof m === 'string' && m.length >= 1 && m.length <= MAX_LOADING_MESSAGE_CHARS);
  if (loading !== undefined && !loadingOk) {
    const what = `1 to ${MAX_LOADING_MESSAGES} items of 1 to ${MAX_LOADING_MESSAGE_CHARS} characters`;
    return refuse('invalid_arguments', {
      response_metadata: { messages: [`[ERROR] ${what} [json-pointer:/loading_messages]`] },
    });
  }
  const status = String(args.status);
  thread.statuses.push(status);
  // An empty status clears it.
  if (status === '') delete thread.status;
  else thread.status = { status, ...(Array.isArray(loading) && { loading_messages: loading.map(String) }) };
  return ok();
}

/** Up to four prompts, each with a title and a message; `undefined` when they are valid. */
function promptsProblem(prompts: unknown): Answer | undefined {
  const valid =
    Array.isArray(prompts) &&
    prompts.length > 0 &&
    prompts.length <= MAX_PROMPTS &&
    prompts.every(
      (p) => typeof p?.title === 'string' && p.title !== '' && typeof p?.message === 'string' && p.message !== '',
    );
  if (valid) return undefined;
  return refuse('invalid_arguments', {
    response_metadata: { messages: [`[ERROR] prompts: 1 to ${MAX_PROMPTS} items, each with a title and a message`] },
  });
}

/**
 * `thread_ts` is optional (method reference): "If not provided, the prompts will be set for the latest message in
 * the channel", and "should only be used in the legacy assistant messaging experience. Including it in a call for
 * an agent app will cause the call to silently fail". An agent_view app's prompts sit at the top of the person's
 * Messages tab; an assistant_view app's go to the thread of the channel's latest message (`message_not_found`
 * when it has none).
 */
function setSuggestedPrompts(call: MethodCall): Answer {
  const { args, tenant, slack } = call;
  const absent = ['channel_id', 'prompts'].filter((k) => args[k] === undefined || args[k] === null);
  if (absent.length) return missing(...absent);
  const channel = String(args.channel_id);
  if (!tenant.holds(channel)) return refuse('channel_not_found');
  const problem = promptsProblem(args.prompts);
  if (problem) return problem;
  const title = text(args.title);
  const set = {
    ...(title !== undefined && { title }),
    prompts: (args.prompts as { title: string; message: string }[]).map(({ title: t, message }) => ({
      title: t,
      message,
    })),
  };
  const agent = slack.view === 'agent_view';
  if (agent && args.thread_ts !== undefined) return ok();
  if (agent) {
    tenant.messagesTabPrompts.set(channel, set);
    return ok();
  }
  const latest = tenant.messages.filter((m) => m.channel === channel).at(-1);
  if (args.thread_ts === undefined && !latest) return refuse('message_not_found');
  const threadTs = args.thread_ts ?? latest?.thread_ts ?? latest?.ts;
  const thread = threadOf({ ...call, args: { ...args, thread_ts: threadTs } }, []);
  if (isAnswer(thread)) return thread;
  thread.suggestedPrompts = set;
  return ok();
}

function setTitle(call: MethodCall): Answer {
  const thread = threadOf(call, ['title']);
  if (isAnswer(thread)) return thread;
  const title = String(call.args.title);
  thread.title = title;
  // The thread's root (subtype assistant_app_thread) carries the title shown in the app's history.
  const root = call.tenant.message(thread.channel, thread.threadTs);
  if (root?.subtype === 'assistant_app_thread') root.assistant_app_thread = { title };
  return ok();
}

export const assistantMethods: Record<string, Handler> = {
  'assistant.threads.setStatus': setStatus,
  'assistant.threads.setSuggestedPrompts': setSuggestedPrompts,
  'assistant.threads.setTitle': setTitle,
};
