import type { AssistantThread } from '../tenant.js';
import { type Answer, type Handler, type MethodCall, missing, ok, refuse, text } from './answer.js';

/** At most 10 loading messages (setStatus reference), and up to four suggested prompts (setSuggestedPrompts). */
const MAX_LOADING_MESSAGES = 10;
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
  if (loading !== undefined && (!Array.isArray(loading) || loading.length > MAX_LOADING_MESSAGES)) {
    return refuse('invalid_arguments', {
      response_metadata: {
        messages: [`[ERROR] no more than ${MAX_LOADING_MESSAGES} items allowed [json-pointer:/loading_messages]`],
      },
    });
  }
  const status = String(args.status);
  thread.statuses.push(status);
  // An empty status clears it.
  if (status === '') delete thread.status;
  else thread.status = { status, ...(Array.isArray(loading) && { loading_messages: loading.map(String) }) };
  return ok();
}

function setSuggestedPrompts(call: MethodCall): Answer {
  const thread = threadOf(call, ['prompts']);
  if (isAnswer(thread)) return thread;
  const prompts = call.args.prompts;
  const valid =
    Array.isArray(prompts) &&
    prompts.length > 0 &&
    prompts.length <= MAX_PROMPTS &&
    prompts.every(
      (p) => typeof p?.title === 'string' && p.title !== '' && typeof p?.message === 'string' && p.message !== '',
    );
  if (!valid) {
    return refuse('invalid_arguments', {
      response_metadata: { messages: [`[ERROR] prompts: 1 to ${MAX_PROMPTS} items, each with a title and a message`] },
    });
  }
  const title = text(call.args.title);
  thread.suggestedPrompts = {
    ...(title !== undefined && { title }),
    prompts: (prompts as { title: string; message: string }[]).map(({ title: t, message }) => ({ title: t, message })),
  };
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
