import { randomUUID } from 'node:crypto';
import {
  botMessageEvent,
  deleteEvent,
  type EventEnvelope,
  editEvents,
  eventEnvelope,
  eventTs,
  messageEvents,
  TOMBSTONE,
} from './events.js';
import { fileObject, fileType } from './files.js';
import type { SlackStandin } from './server.js';
import type { AppContext, AssistantThread, StoredMessage, Tenant, UploadedFile } from './tenant.js';
import { composerLinkShared, linkSharedEvent } from './unfurls.js';
import { messageWire } from './wire.js';

/** A message a person wrote, as stored, and the events Slack sends for it (deliver them, or redeliver them). */
export interface Said {
  ts: string;
  text: string;
  events: EventEnvelope[];
}

/** A file a person shares: a snippet (text) or an upload (bytes: a PNG, a PDF). */
export interface SharedFile {
  name: string;
  content: string | Buffer;
  title?: string;
  /** `snippet` (text made in Slack) or `hosted` (an upload); by default snippet for text types, hosted otherwise. */
  mode?: 'snippet' | 'hosted';
}

interface Where {
  threadTs?: string;
  /** A reply also sent to the channel ("Also send to #channel"): Slack's `thread_broadcast`. */
  broadcast?: boolean;
  /** The workspace it happens in; by default the one holding the channel. */
  teamId?: string;
}

/**
 * What people do in Slack, stored as Slack stores it and returned as the events Slack sends for it: messages (with
 * their wire text), file shares, the assistant pane. The test delivers the events, over HTTP or Socket Mode.
 */
export class PeopleActions {
  constructor(private readonly slack: SlackStandin) {}

  /**
   * `user` writes `typed` in `channel`: a `message` (and an `app_mention` before it when it mentions the bot), and
   * after it a `link_shared` when it links to a domain of the app's `unfurl_domains`.
   */
  says(user: string, channel: string, typed: string, where: Where = {}): Said {
    const tenant = this.where(channel, where);
    const stored = this.store(
      tenant,
      { channel, ts: this.slack.nextTs(), user, text: messageWire(typed, tenant.workspace) },
      where,
    );
    const linkShared = linkSharedEvent(this.slack, tenant, stored);
    const events = [
      ...this.stamped(tenant, this.sent(tenant, messageEvents(tenant, stored))),
      ...(linkShared ? [linkShared] : []),
    ];
    return { ts: stored.ts, text: stored.text ?? '', events };
  }

  /**
   * Another app (`app`: its bot id and the name it posts under) posts in `channel`, as alerting and CI integrations do:
   * a `bot_message` with `text` ('' unless given) and its `attachments` or `blocks`, stored as Slack stores it.
   */
  appPosts(
    app: { botId: string; username: string },
    channel: string,
    posted: Pick<StoredMessage, 'text' | 'attachments' | 'blocks'>,
    where: Where = {},
  ): { ts: string; events: EventEnvelope[] } {
    const tenant = this.where(channel, where);
    const stored: StoredMessage = {
      channel,
      ts: this.slack.nextTs(),
      subtype: 'bot_message',
      bot_id: app.botId,
      username: app.username,
      text: posted.text ?? '',
      ...(posted.attachments && { attachments: posted.attachments }),
      ...(posted.blocks !== undefined && { blocks: posted.blocks }),
      ...(where.threadTs && { thread_ts: where.threadTs }),
    };
    tenant.messages.push(stored);
    return { ts: stored.ts, events: this.sent(tenant, [botMessageEvent(tenant, stored)]) };
  }

  /**
   * `user` edits their message `ts` in `channel` to say `typed`: Slack's `message_changed`, and an `app_mention`
   * again when the new text mentions the bot.
   */
  edits(user: string, channel: string, ts: string, typed: string): { events: EventEnvelope[] } {
    const tenant = this.where(channel, {});
    const stored = tenant.messages.find((m) => m.channel === channel && m.ts === ts && m.user === user);
    if (!stored?.user) throw new Error(`${user} wrote no message ${ts} in ${channel}`);
    const edit = { text: messageWire(typed, tenant.workspace), edited: { user, ts: eventTs() } };
    const events = this.sent(tenant, editEvents(tenant, { ...stored, user }, edit));
    Object.assign(stored, edit);
    return { events };
  }

  /**
   * `user` deletes their message `ts` in `channel`: gone, and `message_deleted`; a thread root with replies stays as
   * Slack's tombstone ("This message was deleted.", by `USLACKBOT`), sent as `message_changed`.
   */
  deletes(user: string, channel: string, ts: string): { events: EventEnvelope[] } {
    const tenant = this.where(channel, {});
    const at = tenant.messages.findIndex((m) => m.channel === channel && m.ts === ts && m.user === user);
    const stored = tenant.messages[at];
    if (!stored) throw new Error(`${user} wrote no message ${ts} in ${channel}`);
    const replied = tenant.messages.some((m) => m.channel === channel && m.thread_ts === ts && m.ts !== ts);
    if (replied) tenant.messages[at] = { channel, ts, thread_ts: ts, ...TOMBSTONE };
    else tenant.messages.splice(at, 1);
    return { events: this.sent(tenant, [deleteEvent(tenant, stored, replied)]) };
  }

  /**
   * `user` types `typed` in `channel`'s composer without sending it: Slack's composer `link_shared` when it links to
   * a domain of the app's `unfurl_domains` (nothing is stored), else no event.
   */
  types(user: string, channel: string, typed: string, where: Where = {}): { events: EventEnvelope[] } {
    const tenant = this.where(channel, where);
    const event = composerLinkShared(this.slack, tenant, user, messageWire(typed, tenant.workspace));
    return { events: event ? [event] : [] };
  }

  /**
   * `user` shares `file` in `channel`, with or without a comment: a `file_share` message whose `files[]` are the
   * file objects (`url_private` on the stand-in, which needs the workspace's bot token).
   */
  sharesFile(
    user: string,
    channel: string,
    file: SharedFile,
    where: Where & { text?: string } = {},
  ): Said & { file: ReturnType<typeof fileObject> } {
    const said = this.sharesFiles(user, channel, [file], where);
    return { ...said, file: said.files[0] as ReturnType<typeof fileObject> };
  }

  /** `user` shares several files in one message (Slack allows up to 10), with or without a comment. */
  sharesFiles(
    user: string,
    channel: string,
    files: SharedFile[],
    where: Where & { text?: string } = {},
  ): Said & { files: ReturnType<typeof fileObject>[] } {
    const tenant = this.where(channel, where);
    const objects = files.map((file) => fileObject(this.slack, tenant, this.upload(tenant, user, channel, file)));
    const text = where.text === undefined ? '' : messageWire(where.text, tenant.workspace);
    const message = { channel, ts: this.slack.nextTs(), user, text, subtype: 'file_share', files: objects };
    const said = this.store(tenant, message, where);
    const events = this.stamped(tenant, this.sent(tenant, messageEvents(tenant, said)));
    return { ts: said.ts, text, files: objects, events };
  }

  private upload(tenant: Tenant, user: string, channel: string, file: SharedFile): UploadedFile {
    const bytes = Buffer.isBuffer(file.content) ? file.content : Buffer.from(file.content, 'utf8');
    const kind = fileType(file.name);
    const stored: UploadedFile = {
      id: `F${this.slack.nextId()}`,
      name: file.name,
      title: file.title ?? file.name,
      content: kind.text ? bytes.toString('utf8') : '',
      bytes,
      channel,
      user,
      mode: file.mode ?? (kind.text ? 'snippet' : 'hosted'),
      created: Math.floor(this.slack.now() / 1000),
    };
    tenant.files.push(stored);
    return stored;
  }

  /**
   * `user` opens the app's assistant pane while looking at `context` (a channel): a new thread in their DM with the
   * app, rooted in a message of subtype `assistant_app_thread`, and `assistant_thread_started`.
   */
  opensAssistant(user: string, options: { context?: string; teamId?: string } = {}) {
    if (this.slack.view === 'agent_view') throw new Error('an agent_view app has no assistant pane: opensMessagesTab');
    const tenant = this.slack.tenant(options.teamId);
    const channel = `D${user}`;
    const threadTs = this.slack.nextTs();
    tenant.messages.push({
      channel,
      ts: threadTs,
      user: tenant.workspace.botUserId,
      bot_id: tenant.workspace.botId,
      subtype: 'assistant_app_thread',
      text: 'New chat',
      assistant_app_thread: { title: 'New chat' },
    });
    const thread: AssistantThread = {
      userId: user,
      channel,
      threadTs,
      context: this.context(tenant, options.context),
      statuses: [],
    };
    tenant.assistantThreads.push(thread);
    return { channel, threadTs, thread, events: [this.assistantEvent(tenant, 'assistant_thread_started', thread)] };
  }

  /**
   * The person clicks the suggested prompt titled `title` in the pane: Slack posts its message as theirs, in the
   * thread (a `message.im`). Throws when the app offered no such prompt.
   */
  picksPrompt(thread: AssistantThread, title: string): Said {
    const prompt = thread.suggestedPrompts?.prompts.find((p) => p.title === title);
    if (!prompt) throw new Error(`the app offered no prompt "${title}" in this thread`);
    return this.says(thread.userId, thread.channel, prompt.message, { threadTs: thread.threadTs });
  }

  /** The person moves to `context` with the pane open: `assistant_thread_context_changed`. */
  movesAssistant(thread: AssistantThread, context: string, teamId?: string): EventEnvelope[] {
    const tenant = this.slack.tenant(teamId);
    thread.context = this.context(tenant, context);
    return [this.assistantEvent(tenant, 'assistant_thread_context_changed', thread)];
  }

  /**
   * `user` opens the app's Messages tab (their DM with it) while looking at `context` (a channel): `app_home_opened`
   * with `tab: "messages"`, the DM-open signal of the Agent messaging experience (migration guide), which carries what
   * the person is looking at (`context`, as `app_context_changed` does) on an agent_view app.
   */
  opensMessagesTab(user: string, options: { context?: string; teamId?: string } = {}) {
    const tenant = this.slack.tenant(options.teamId);
    const channel = `D${user}`;
    const agent = this.slack.view === 'agent_view';
    const context = agent ? this.look(tenant, user, options.context) : undefined;
    const event = { type: 'app_home_opened', user, channel, tab: 'messages', ...(context && { context }) };
    return { channel, events: [eventEnvelope(tenant, { ...event, event_ts: this.slack.nextTs() })] };
  }

  /**
   * `user` moves to `channel` (or to no channel) with the app open: `app_context_changed` (its entities ordered by
   * relevance, `{}` when there are none). Slack sends it only to an agent_view app: none otherwise.
   */
  looksAt(user: string, channel: string | undefined, teamId?: string): EventEnvelope[] {
    if (this.slack.view !== 'agent_view') return [];
    const tenant = this.slack.tenant(teamId);
    const context = this.look(tenant, user, channel);
    const event = { type: 'app_context_changed', user, channel: `D${user}`, context, event_ts: this.slack.nextTs() };
    return [eventEnvelope(tenant, event)];
  }

  private look(tenant: Tenant, user: string, channel: string | undefined): AppContext {
    const entity = { type: 'slack#/types/channel_id', value: channel, team_id: tenant.teamId };
    const context: AppContext = channel ? { entities: [entity] } : {};
    tenant.viewing.set(user, context);
    return context;
  }

  /**
   * `user` presses Stop on the agent session of `channel`'s thread `threadTs`: `agent_session_stopped` (Slack shows
   * the button only while the session is `processing`, and it does something only when the app subscribes to the
   * event). The session keeps its status: the app must move it away from `processing` (docs.slack.dev). Slack stops
   * the app's messages still streaming in the thread and lists them (`streaming_message_ts`).
   */
  stopsSession(user: string, channel: string, threadTs: string, teamId?: string): EventEnvelope[] {
    const tenant = this.slack.tenant(teamId);
    const session = tenant.agentSession(channel, threadTs);
    if (session?.status !== 'processing')
      throw new Error(`no Stop button: the session of ${threadTs} is not processing`);
    if (!this.slack.subscriptions.has('agent_session_stopped')) return [];
    const streaming: string[] = [];
    for (const message of tenant.messages) {
      const stream = tenant.streams.get(`${message.channel}/${message.ts}`);
      const inThread = message.channel === channel && (message.ts === threadTs || message.thread_ts === threadTs);
      const open = stream && !stream.stopped && this.slack.now() - stream.lastAt <= this.slack.streamExpiryMs;
      if (!inThread || !open) continue;
      stream.stopped = true;
      stream.stoppedByUser = true;
      streaming.push(message.ts);
    }
    const event = {
      type: 'agent_session_stopped',
      channel,
      user,
      thread_ts: threadTs,
      streaming_message_ts: streaming,
    };
    return [eventEnvelope(tenant, { ...event, event_ts: this.slack.nextTs() })];
  }

  /**
   * What Slack sends the app of a conversation's messages: nothing where the bot is not in it (message.im is for the
   * bot's own DMs; app_mention's reference: no event where the app is not party to the conversation).
   */
  private sent(tenant: Tenant, events: EventEnvelope[]): EventEnvelope[] {
    const channel = events[0]?.event.channel;
    return typeof channel === 'string' && !tenant.botIn(channel) ? [] : events;
  }

  /** agent_view: a person's DM message carries what they were looking at as they wrote it (`app_context`). */
  private stamped(tenant: Tenant, events: EventEnvelope[]): EventEnvelope[] {
    if (this.slack.view !== 'agent_view') return events;
    for (const { event } of events) {
      const context = tenant.viewing.get(String(event.user));
      if (event.channel_type === 'im' && context) event.app_context = context;
    }
    return events;
  }

  private assistantEvent(tenant: Tenant, type: string, thread: AssistantThread): EventEnvelope {
    const assistantThread = {
      user_id: thread.userId,
      context: thread.context,
      channel_id: thread.channel,
      thread_ts: thread.threadTs,
    };
    return eventEnvelope(tenant, { type, assistant_thread: assistantThread, event_ts: this.slack.nextTs() });
  }

  private context(tenant: Tenant, channel: string | undefined): AssistantThread['context'] {
    if (!channel) return {};
    return { channel_id: channel, team_id: tenant.teamId, enterprise_id: tenant.workspace.enterpriseId ?? null };
  }

  private where(channel: string, where: Where): Tenant {
    return where.teamId ? this.slack.tenant(where.teamId) : this.slack.tenantOf(channel);
  }

  private store(tenant: Tenant, message: StoredMessage & { user: string }, where: Where) {
    const authorTeam = tenant.author(message.user)?.teamId ?? tenant.teamId;
    const thread = where.threadTs && {
      thread_ts: where.threadTs,
      ...(where.broadcast && { subtype: 'thread_broadcast' }),
    };
    const stored = { ...message, team: authorTeam, client_msg_id: randomUUID(), ...thread };
    tenant.messages.push(stored);
    return stored;
  }
}
