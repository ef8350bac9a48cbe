import { BLOCK_KIT_LIMITS } from '../block-kit.js';
import { TASK_STATUSES } from '../plan-blocks.js';
import type { SessionStatus, StoredMessage, Tenant } from '../tenant.js';
import { SESSION_STATUSES } from './agents.js';
import { type Answer, type Handler, type MethodCall, missing, ok, refuse, text } from './answer.js';
import { invalidBlocks, postRefusal, withoutChannel } from './chat.js';

// Streamed messages (docs.slack.dev chat.startStream, chat.appendStream, chat.stopStream): a message the app writes
// in steps, as `markdown_text` and chunks (`markdown_text`, `task_update`, `plan_update`, `blocks`), until it stops
// it. With `task_display_mode: plan` its task updates render together in one `plan` block. A stream whose appends
// stop for a while is no longer streaming (`message_not_in_streaming_state`); how long is the stand-in's
// `streamExpiryMs` (Slack gives no figure). One the person stopped (Slack's Stop on an agent session) takes no more
// appends (`stopped_by_user`); chunks Slack does not take are `invalid_chunks`, and a message the app did not
// stream is not its to append to or stop (`message_not_owned_by_app`). Stored messages carry what Slack would
// render, as blocks.

const DISPLAY_MODES = ['timeline', 'plan'];
const CHUNK_TYPES = ['markdown_text', 'task_update', 'plan_update', 'blocks'];
type Json = Record<string, unknown>;

interface Task {
  id: string;
  title: string;
  status: string;
  details?: string;
  output?: string;
}

/** A streamed message's state: open until stopped, or until no append came for `streamExpiryMs`. */
export interface MessageStream {
  mode: 'timeline' | 'plan';
  markdown: string;
  title?: string;
  tasks: Task[];
  final: unknown[];
  lastAt: number;
  stopped: boolean;
  /** Stopped by the person's Stop on the thread's agent session (`people.stopsSession`). */
  stoppedByUser?: boolean;
}

const invalid = (...messages: string[]) => refuse('invalid_arguments', { response_metadata: { messages } });

/**
 * Slack's refusal of `markdown_text` and `chunks`, or undefined when it takes them: the arguments' shape is
 * `invalid_arguments`, what the chunks hold `invalid_chunks` ("Chunks submitted with this message are not valid").
 */
function contentRefusal(args: Json): Answer | undefined {
  const md = args.markdown_text;
  if (md !== undefined && (typeof md !== 'string' || md.length > BLOCK_KIT_LIMITS.markdownText)) {
    return invalid(
      `[ERROR] markdown_text: at most ${BLOCK_KIT_LIMITS.markdownText} characters [json-pointer:/markdown_text]`,
    );
  }
  if (args.chunks === undefined) return undefined;
  if (!Array.isArray(args.chunks)) return invalid('[ERROR] must be an array [json-pointer:/chunks]');
  const problems = chunkProblems(args.chunks as Json[]);
  return problems.length ? refuse('invalid_chunks', { response_metadata: { messages: problems } }) : undefined;
}

function chunkProblems(chunks: Json[]): string[] {
  const problems: string[] = [];
  for (const [i, chunk] of chunks.entries()) {
    const at = `/chunks/${i}`;
    const bad = (what: string) => problems.push(`[ERROR] ${what} [json-pointer:${at}]`);
    if (!CHUNK_TYPES.includes(String(chunk?.type))) bad(`type must be one of ${CHUNK_TYPES.join(', ')}`);
    else if (
      chunk.type === 'markdown_text' &&
      (typeof chunk.text !== 'string' || chunk.text.length > BLOCK_KIT_LIMITS.markdownText)
    )
      bad(`text: a string of at most ${BLOCK_KIT_LIMITS.markdownText} characters`);
    else if (
      chunk.type === 'task_update' &&
      (typeof chunk.id !== 'string' || typeof chunk.title !== 'string' || !chunk.title)
    )
      bad('task_update needs an id and a title');
    else if (chunk.type === 'task_update' && !TASK_STATUSES.includes(chunk.status as (typeof TASK_STATUSES)[number]))
      bad(`status must be one of ${TASK_STATUSES.join(', ')}`);
    else if (chunk.type === 'plan_update' && (typeof chunk.title !== 'string' || !chunk.title))
      bad('plan_update needs a title');
    else if (chunk.type === 'blocks') {
      const answer = invalidBlocks(chunk.blocks);
      if (answer) bad('blocks are invalid');
    }
  }
  return problems;
}

function apply(stream: MessageStream, args: Json): void {
  if (typeof args.markdown_text === 'string') stream.markdown += args.markdown_text;
  for (const chunk of (args.chunks as Json[] | undefined) ?? []) {
    if (chunk.type === 'markdown_text') stream.markdown += String(chunk.text);
    if (chunk.type === 'plan_update') stream.title = String(chunk.title);
    if (chunk.type === 'blocks') stream.final.push(...(chunk.blocks as unknown[]));
    if (chunk.type !== 'task_update') continue;
    const task: Task = {
      id: String(chunk.id),
      title: String(chunk.title),
      status: String(chunk.status),
      ...(typeof chunk.details === 'string' && { details: chunk.details }),
      ...(typeof chunk.output === 'string' && { output: chunk.output }),
    };
    const at = stream.tasks.findIndex((t) => t.id === task.id);
    if (at < 0) stream.tasks.push(task);
    else stream.tasks[at] = task;
  }
}

const richText = (s: string) => ({
  type: 'rich_text',
  elements: [{ type: 'rich_text_section', elements: [{ type: 'text', text: s }] }],
});

/** What Slack shows of a stream, as blocks: its text, its tasks (one plan, or cards), then its final blocks. */
function render(message: StoredMessage, stream: MessageStream): void {
  const cards = stream.tasks.map((t) => ({
    type: 'task_card',
    task_id: t.id,
    title: t.title,
    status: t.status,
    ...(t.details && { details: richText(t.details) }),
    ...(t.output && { output: richText(t.output) }),
  }));
  const tasks =
    stream.mode === 'plan' && cards.length ? [{ type: 'plan', title: stream.title ?? 'Plan', tasks: cards }] : cards;
  message.text = stream.markdown;
  message.blocks = [
    ...(stream.markdown ? [{ type: 'markdown', text: stream.markdown }] : []),
    ...tasks,
    ...stream.final,
  ];
}

function startStream({ args, tenant, slack }: MethodCall): Answer {
  if (args.channel === undefined) return missing('channel');
  if (!slack.streaming) return refuse('feature_not_enabled');
  const channel = String(args.channel);
  if (!tenant.holds(channel)) return refuse('channel_not_found');
  // Its method reference lists a post's refusals too: hidden, archived (`is_archived`), not a member.
  const refused = postRefusal(tenant, channel);
  if (refused) return refused;
  // "Required when streaming to channels": a DM has one person to stream to.
  if (!channel.startsWith('D')) {
    if (!text(args.recipient_user_id)) return refuse('missing_recipient_user_id');
    if (!text(args.recipient_team_id)) return refuse('missing_recipient_team_id');
  }
  const recipient = text(args.recipient_user_id);
  if (recipient && !tenant.author(recipient)) return refuse('user_not_found');
  const mode = args.task_display_mode ?? 'timeline';
  if (!DISPLAY_MODES.includes(String(mode)))
    return invalid('[ERROR] task_display_mode must be timeline or plan [json-pointer:/task_display_mode]');
  const threadTs = text(args.thread_ts);
  if (threadTs && !tenant.message(channel, threadTs)) return refuse('invalid_thread_ts');
  const unfit = contentRefusal(args);
  if (unfit) return unfit;
  const { botUserId, botId } = tenant.workspace;
  const message: StoredMessage = {
    channel,
    ts: slack.nextTs(),
    user: botUserId,
    bot_id: botId,
    ...(threadTs && { thread_ts: threadTs }),
  };
  const stream: MessageStream = {
    mode: mode as MessageStream['mode'],
    markdown: '',
    tasks: [],
    final: [],
    lastAt: slack.now(),
    stopped: false,
  };
  apply(stream, args);
  render(message, stream);
  tenant.messages.push(message);
  tenant.streams.set(`${channel}/${message.ts}`, stream);
  return ok({ channel, ts: message.ts });
}

/**
 * The stream `channel`/`ts` names, still streaming; otherwise Slack's refusal. `append`: chat.appendStream, the one
 * method whose reference lists `stopped_by_user`.
 */
function openStream(
  { args, tenant, slack }: MethodCall,
  { append = false } = {},
): { message: StoredMessage; stream: MessageStream } | Answer {
  const absent = ['channel', 'ts'].filter((k) => args[k] === undefined);
  if (absent.length) return missing(...absent);
  const message = tenant.message(String(args.channel), String(args.ts));
  if (!message) return refuse('message_not_found');
  if (message.bot_id !== tenant.workspace.botId) return refuse('message_not_owned_by_app');
  const stream = streamOf(tenant, message);
  if (append && stream?.stoppedByUser) return refuse('stopped_by_user');
  if (!stream || stream.stopped || slack.now() - stream.lastAt > slack.streamExpiryMs) {
    return refuse('message_not_in_streaming_state');
  }
  return contentRefusal(args) ?? { message, stream };
}

const streamOf = (tenant: Tenant, message: StoredMessage) => tenant.streams.get(`${message.channel}/${message.ts}`);

/**
 * What a person sees of a streamed message: still streaming, final (stopped, or rewritten with chat.update), or
 * broken: expired without either, which Slack leaves as a grey "Something went wrong" (python-slack-sdk#1859).
 */
export function streamShown(stream: MessageStream, now: number, expiryMs: number): 'streaming' | 'final' | 'broken' {
  if (stream.stopped) return 'final';
  return now - stream.lastAt > expiryMs ? 'broken' : 'streaming';
}

const isAnswer = (x: object): x is Answer => 'body' in x;

function appendStream(call: MethodCall): Answer {
  const found = openStream(call, { append: true });
  if (isAnswer(found)) return found;
  if (call.args.markdown_text === undefined && call.args.chunks === undefined) return missing('markdown_text');
  apply(found.stream, call.args);
  found.stream.lastAt = call.slack.now();
  render(found.message, found.stream);
  return ok({ channel: found.message.channel, ts: found.message.ts });
}

/**
 * What a message's `metadata` holds ("JSON object with event_type and event_payload fields", chat.postMessage,
 * chat.update, chat.stopStream), or why not.
 */
export function metadataOf(value: unknown): { metadata?: Json } | Answer {
  if (value === undefined) return {};
  let parsed: unknown = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch {
      return refuse('invalid_metadata_format');
    }
  }
  const m = parsed as Json | null;
  if (typeof m?.event_type !== 'string' || !m.event_type || typeof m.event_payload !== 'object' || !m.event_payload) {
    return refuse('invalid_metadata_schema');
  }
  return { metadata: m };
}

/**
 * Finalises the message: its last chunks, at most 50 `blocks` under them (a limit apart from the chunks' blocks),
 * its `metadata`, and the thread's agent session set to `session_status` (default `active`) when it has one.
 */
function stopStream(call: MethodCall): Answer {
  const found = openStream(call);
  if (isAnswer(found)) return found;
  const { args, tenant } = call;
  const bad = invalidBlocks(args.blocks);
  if (bad) return bad;
  const status = args.session_status ?? 'active';
  if (!SESSION_STATUSES.includes(status as SessionStatus)) {
    return invalid(
      `[ERROR] session_status must be one of ${SESSION_STATUSES.join(', ')} [json-pointer:/session_status]`,
    );
  }
  const meta = metadataOf(args.metadata);
  if (isAnswer(meta)) return meta;
  const { message, stream } = found;
  apply(stream, args);
  if (Array.isArray(args.blocks)) stream.final.push(...args.blocks);
  stream.stopped = true;
  render(message, stream);
  if (meta.metadata) message.metadata = meta.metadata;
  const session = tenant.agentSession(message.channel, message.thread_ts ?? message.ts);
  if (session) {
    session.status = status as SessionStatus;
    session.statuses.push(session.status);
  }
  return ok({ channel: message.channel, ts: message.ts, message: withoutChannel(message) });
}

export const streamMethods: Record<string, Handler> = {
  'chat.startStream': startStream,
  'chat.appendStream': appendStream,
  'chat.stopStream': stopStream,
};
