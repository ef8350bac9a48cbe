import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { blockKitProblems, type Surface } from './block-kit.js';
import { messageWire } from './wire.js';
import { defaultWorkspace, type StandinUser, type Workspace } from './workspace.js';

/** One Web API call, response_url post or file upload the app made. Form fields holding JSON are decoded. */
export interface SlackCall {
  method: string;
  args: Record<string, unknown>;
  at: number;
}

export type SlackFault =
  | { error: string }
  | { status: 429; retryAfterSec: number }
  | { status: 500 | 502 | 503; afterStoring?: boolean }
  /** Answers normally, this much later (longer than the client's timeout: a hung request). */
  | { delayMs: number }
  /** Stores the message, then runs `then` before answering (e.g. kills the caller between Slack's answer and its record). */
  | { storeThen: () => void | Promise<void> };

/** A message the stand-in stored, as `conversations.history`/`replies` return it. */
export interface StoredMessage {
  channel: string;
  ts: string;
  thread_ts?: string;
  text?: string;
  blocks?: unknown;
  metadata?: unknown;
  user?: string;
  bot_id?: string;
  files?: { id: string; name: string; title: string; permalink?: string }[];
}

/** A message only one person sees (`chat.postEphemeral`). */
export interface EphemeralMessage {
  channel: string;
  user: string;
  ts: string;
  thread_ts?: string;
  text?: string;
  blocks?: unknown;
}

export interface UploadedFile {
  id: string;
  name: string;
  title?: string;
  content: string;
  /** The bytes as uploaded (a PNG chart is not text). */
  bytes?: Buffer;
  channel?: string;
}

export interface StoredView {
  id: string;
  /** `views.open`/`push` (a modal) or `views.publish` (a user's App Home). */
  via: string;
  user_id?: string;
  view: Record<string, unknown>;
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

type Args = Record<string, unknown>;

/** Token kinds and why a token is refused (`invalid_auth`, `token_revoked`, `account_inactive`, …). */
type TokenState = { kind: 'bot' | 'app' } | { refused: string };

/** Methods that take the app-level token (`xapp-`); every other method takes the bot token. */
const APP_TOKEN_METHODS = new Set(['apps.connections.open']);

/**
 * A stand-in for Slack on 127.0.0.1: the Web API (messages stored and read back, users, auth per token, Block Kit
 * limits, file uploads, views), `response_url`s, and fault injection. Used by the tests and the playground.
 */
export class SlackStandin {
  readonly calls: SlackCall[] = [];
  readonly messages: StoredMessage[] = [];
  readonly ephemerals: EphemeralMessage[] = [];
  readonly files: UploadedFile[] = [];
  readonly views: StoredView[] = [];
  readonly workspace: Workspace;
  url = '';
  /** Set by a Socket Mode server attached to this stand-in: what `apps.connections.open` hands out. */
  socketModeUrl?: () => string;
  private readonly tokens = new Map<string, TokenState>();
  private readonly faults: {
    method: string;
    fault: SlackFault;
    remaining: number;
    when?: ((args: Args) => boolean) | undefined;
  }[] = [];
  private server?: Server;
  private seq = 0;

  constructor(workspace: Workspace = defaultWorkspace()) {
    this.workspace = workspace;
    this.acceptToken(workspace.botToken, 'bot');
    this.acceptToken(workspace.appToken, 'app');
  }

  async start(port = 0): Promise<this> {
    this.server = createServer((req, res) => {
      void this.handle(req).then(({ status, headers, body }) => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(JSON.stringify(body));
      });
    });
    this.server.listen(port, '127.0.0.1');
    await once(this.server, 'listening');
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }

  /** Base URL for the app's `SLACK_API_URL`. */
  get apiUrl(): string {
    return `${this.url}/api/`;
  }

  /** A `response_url` for a slash command or action; posts to it are recorded as method `response_url:<id>`. */
  responseUrl(id = 'r1'): string {
    return `${this.url}/respond/${id}`;
  }

  /** Lets `token` in as a bot (`xoxb-`) or app-level (`xapp-`) token. */
  acceptToken(token: string, kind: 'bot' | 'app' = token.startsWith('xapp-') ? 'app' : 'bot'): void {
    this.tokens.set(token, { kind });
  }

  /** Refuses `token` from now on, as Slack does a revoked token or a deactivated account. */
  refuseToken(token: string, error = 'token_revoked'): void {
    this.tokens.set(token, { refused: error });
  }

  /** Makes the next `count` calls of `method` (those `when` accepts, if given) fail with `fault`. */
  fail(method: string, fault: SlackFault, count = 1, when?: (args: Args) => boolean): void {
    this.faults.push({ method, fault, remaining: count, when });
  }

  callsTo(method: string): SlackCall[] {
    return this.calls.filter((c) => c.method === method);
  }

  reset(): void {
    this.calls.length = 0;
    this.faults.length = 0;
  }

  user(id: string): StandinUser | undefined {
    return this.workspace.users.find((u) => u.id === id);
  }

  /**
   * A person writes `typed` in `channel` (in the thread of `threadTs`, when given): stored as Slack stores it (its
   * wire text, `client_msg_id`, files with their permalinks), so `conversations.replies` reads it back.
   */
  postAs(
    user: string,
    channel: string,
    typed: string,
    options: { threadTs?: string; files?: { id: string; name: string }[] } = {},
  ): StoredMessage & { text: string } {
    const message = {
      channel,
      ts: `${1_700_000_000 + ++this.seq}.000100`,
      user,
      text: messageWire(typed, this.workspace),
      ...(options.threadTs && { thread_ts: options.threadTs }),
      ...(options.files && {
        files: options.files.map((f) => ({ ...f, title: f.name, permalink: this.permalink(channel, f.id, f.name) })),
      }),
    };
    this.messages.push(message);
    return message;
  }

  /** What `chat.getPermalink` answers for a message, and the link of a shared file. */
  permalink(channel: string, ts: string, fileName?: string): string {
    const base = `https://${this.workspace.teamDomain}.slack.com`;
    return fileName
      ? `${base}/files/${channel}/${ts}/${fileName}`
      : `${base}/archives/${channel}/p${ts.replace('.', '')}`;
  }

  private async handle(req: IncomingMessage): Promise<Answer> {
    const raw = await readBody(req);
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const method = path.startsWith('/api/')
      ? path.slice(5)
      : path.startsWith('/respond/')
        ? `response_url:${path.slice(9)}`
        : path.startsWith('/upload/')
          ? 'file_upload'
          : path;
    const args = method === 'file_upload' ? { content: raw.toString('utf8') } : parseArgs(req, raw);
    this.calls.push({ method, args, at: Date.now() });
    const ok = (body: unknown): Answer => ({ status: 200, headers: {}, body });
    // The call keeps the raw body; the stored file gets the content (files.uploadV2 sends multipart form data).
    const answerArgs = method === 'file_upload' ? await uploadedContent(req, raw) : args;

    const fault = this.faults.find((f) => f.method === method && f.remaining > 0 && (f.when?.(args) ?? true));
    if (fault) {
      fault.remaining -= 1;
      const f = fault.fault;
      if ('storeThen' in f) {
        const answer = this.answer(method, answerArgs, req, path);
        await f.storeThen();
        return answer;
      }
      if ('delayMs' in f) {
        await new Promise((resolve) => setTimeout(resolve, f.delayMs));
        return this.answer(method, answerArgs, req, path);
      }
      // Slack can store a message and still answer 5xx.
      if ('afterStoring' in f && f.afterStoring) this.answer(method, answerArgs, req, path);
      if ('error' in f) return ok({ ok: false, error: f.error });
      if (f.status === 429) {
        return {
          status: 429,
          headers: { 'retry-after': String(f.retryAfterSec) },
          body: { ok: false, error: 'ratelimited' },
        };
      }
      return { status: f.status, headers: {}, body: { ok: false, error: 'internal_error' } };
    }
    return this.answer(method, answerArgs, req, path);
  }

  private answer(method: string, args: Args, req: IncomingMessage, path: string): Answer {
    const ok = (body: Record<string, unknown>): Answer => ({ status: 200, headers: {}, body: { ok: true, ...body } });
    const refuse = (error: string, extra: Record<string, unknown> = {}): Answer => ({
      status: 200,
      headers: {},
      body: { ok: false, error, ...extra },
    });
    if (method.startsWith('response_url:')) {
      const problems = args.blocks === undefined ? [] : blockKitProblems(args.blocks);
      if (problems.length) return { status: 400, headers: {}, body: { ok: false, error: 'invalid_blocks' } };
      if (args.text === undefined && args.blocks === undefined && !args.delete_original) {
        return { status: 400, headers: {}, body: { ok: false, error: 'no_text' } };
      }
      return ok({});
    }
    if (method === 'file_upload') {
      const file = this.files.find((f) => path.endsWith(`/${f.id}`));
      if (!file) return { status: 404, headers: {}, body: { ok: false, error: 'file_not_found' } };
      file.content = String(args.content);
      if (Buffer.isBuffer(args.bytes)) file.bytes = args.bytes;
      return ok({});
    }
    if (!path.startsWith('/api/')) return { status: 404, headers: {}, body: { ok: false, error: 'not_found' } };

    const token = bearer(req) ?? (typeof args.token === 'string' ? args.token : undefined);
    if (!token) return refuse('not_authed');
    const state = this.tokens.get(token);
    if (!state) return refuse('invalid_auth');
    if ('refused' in state) return refuse(state.refused);
    if (state.kind !== (APP_TOKEN_METHODS.has(method) ? 'app' : 'bot')) return refuse('not_allowed_token_type');

    const ws = this.workspace;
    const ts = () => `${1_700_000_000 + ++this.seq}.000100`;
    const invalidBlocks = (blocks: unknown, surface: Surface = 'message') => {
      if (blocks === undefined) return undefined;
      const problems = blockKitProblems(blocks, surface);
      return problems.length
        ? refuse('invalid_blocks', { errors: problems, response_metadata: { messages: problems } })
        : undefined;
    };
    const text = typeof args.text === 'string' ? args.text : undefined;

    switch (method) {
      case 'api.test':
        return ok({ args });
      case 'auth.test':
        return ok({
          url: `https://${ws.teamDomain}.slack.com/`,
          team: ws.teamDomain,
          user: 'mintlify',
          team_id: ws.teamId,
          user_id: ws.botUserId,
          bot_id: ws.botId,
          is_enterprise_install: false,
        });
      case 'apps.connections.open':
        if (!this.socketModeUrl) return refuse('not_allowed', { warning: 'no Socket Mode server attached' });
        return ok({ url: this.socketModeUrl() });
      case 'users.info': {
        const user = this.user(String(args.user));
        if (!user) return refuse('user_not_found');
        return ok({
          user: {
            id: user.id,
            team_id: ws.teamId,
            name: user.name,
            real_name: user.realName,
            is_bot: user.isBot ?? false,
            deleted: false,
            profile: { display_name: user.displayName, real_name: user.realName },
          },
        });
      }
      case 'conversations.open': {
        // The bot's DM with one person: Slack answers the same D… id every time.
        const [userId = ''] = String(args.users ?? '').split(',');
        if (!this.user(userId)) return refuse('user_not_found');
        return ok({ channel: { id: `D${userId}` } });
      }
      case 'conversations.info': {
        const channel = ws.channels.find((c) => c.id === args.channel);
        if (!channel) return refuse('channel_not_found');
        return ok({ channel: { id: channel.id, name: channel.name, is_channel: true } });
      }
      case 'chat.postMessage': {
        if (text === undefined && args.blocks === undefined) return refuse('no_text');
        const bad = invalidBlocks(args.blocks);
        if (bad) return bad;
        const message: StoredMessage = {
          channel: String(args.channel),
          ts: ts(),
          user: ws.botUserId,
          bot_id: ws.botId,
          ...(text !== undefined && { text }),
          ...(args.blocks !== undefined && { blocks: args.blocks }),
          ...(typeof args.thread_ts === 'string' && { thread_ts: args.thread_ts }),
          ...(args.metadata !== undefined && { metadata: args.metadata }),
        };
        this.messages.push(message);
        return ok({ channel: message.channel, ts: message.ts, message: withoutChannel(message) });
      }
      case 'chat.update': {
        const bad = invalidBlocks(args.blocks);
        if (bad) return bad;
        const message = this.messages.find((m) => m.channel === args.channel && m.ts === args.ts);
        if (!message) return refuse('message_not_found');
        if (text !== undefined) message.text = text;
        if (args.blocks !== undefined) message.blocks = args.blocks;
        if (args.metadata !== undefined) message.metadata = args.metadata;
        return ok({
          channel: message.channel,
          ts: message.ts,
          text: message.text ?? '',
          message: withoutChannel(message),
        });
      }
      case 'chat.postEphemeral': {
        if (text === undefined && args.blocks === undefined) return refuse('no_text');
        const bad = invalidBlocks(args.blocks);
        if (bad) return bad;
        const message: EphemeralMessage = {
          channel: String(args.channel),
          user: String(args.user),
          ts: ts(),
          ...(text !== undefined && { text }),
          ...(args.blocks !== undefined && { blocks: args.blocks }),
          ...(typeof args.thread_ts === 'string' && { thread_ts: args.thread_ts }),
        };
        this.ephemerals.push(message);
        return ok({ message_ts: message.ts });
      }
      case 'conversations.replies':
      case 'conversations.history': {
        const withMetadata = args.include_all_metadata === true || args.include_all_metadata === 'true';
        const inThread = (m: StoredMessage) => m.ts === args.ts || m.thread_ts === args.ts;
        const all = this.messages
          .filter(
            (m) => m.channel === args.channel && (method === 'conversations.replies' ? inThread(m) : !m.thread_ts),
          )
          .map(({ metadata, channel: _, ...m }) => ({
            type: 'message',
            ...m,
            ...(withMetadata && metadata !== undefined && { metadata }),
          }));
        // History is newest first; a thread is its root, then replies oldest first.
        if (method === 'conversations.history') all.reverse();
        const limit = Math.min(Number(args.limit) || 100, 1000);
        const start = Number(args.cursor ?? 0) || 0;
        const page = all.slice(start, start + limit);
        const more = start + limit < all.length;
        return ok({
          messages: page,
          has_more: more,
          response_metadata: { next_cursor: more ? String(start + limit) : '' },
        });
      }
      case 'chat.getPermalink': {
        const found = this.messages.some((m) => m.channel === args.channel && m.ts === args.message_ts);
        if (!found) return refuse('message_not_found');
        return ok({ channel: args.channel, permalink: this.permalink(String(args.channel), String(args.message_ts)) });
      }
      case 'files.getUploadURLExternal': {
        const file: UploadedFile = { id: `F${++this.seq}`, name: String(args.filename), content: '' };
        this.files.push(file);
        return ok({ upload_url: `${this.url}/upload/${file.id}`, file_id: file.id });
      }
      case 'files.completeUploadExternal': {
        const wanted = (args.files as { id: string; title?: string }[] | undefined) ?? [];
        const files = wanted.map((w) => ({ w, file: this.files.find((f) => f.id === w.id) }));
        if (files.length === 0 || files.some(({ file }) => !file)) return refuse('file_not_found');
        const shared = files.map(({ w, file }) => {
          const f = file as UploadedFile;
          f.title = w.title ?? f.name;
          if (typeof args.channel_id === 'string') f.channel = args.channel_id;
          return { id: f.id, name: f.name, title: f.title };
        });
        if (typeof args.channel_id === 'string') {
          this.messages.push({
            channel: args.channel_id,
            ts: ts(),
            user: ws.botUserId,
            bot_id: ws.botId,
            files: shared,
            ...(typeof args.initial_comment === 'string' && { text: args.initial_comment }),
            ...(typeof args.thread_ts === 'string' && { thread_ts: args.thread_ts }),
          });
        }
        return ok({ files: shared });
      }
      case 'views.open':
      case 'views.push':
      case 'views.publish':
      case 'views.update': {
        const view = (args.view ?? {}) as Record<string, unknown>;
        const bad = invalidBlocks(view.blocks ?? [], 'view');
        if (bad) return bad;
        const existing = method === 'views.update' ? this.views.find((v) => v.id === args.view_id) : undefined;
        if (method === 'views.update' && !existing) return refuse('not_found');
        const stored: StoredView = existing ?? {
          id: `V${++this.seq}`,
          via: method,
          ...(typeof args.user_id === 'string' && { user_id: args.user_id }),
          view,
        };
        stored.view = view;
        if (!existing) this.views.push(stored);
        return ok({ view: { id: stored.id, team_id: ws.teamId, app_id: ws.appId, ...view } });
      }
      default:
        return ok({});
    }
  }
}

function withoutChannel({ channel: _, ...message }: StoredMessage) {
  return { type: 'message', ...message };
}

function bearer(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  return header?.startsWith('Bearer ') ? header.slice(7) : undefined;
}

async function uploadedContent(req: IncomingMessage, raw: Buffer): Promise<{ content: string; bytes: Buffer }> {
  const type = req.headers['content-type'] ?? '';
  if (!type.startsWith('multipart/form-data')) return { content: raw.toString('utf8'), bytes: raw };
  const form = await new Response(raw, { headers: { 'content-type': type } }).formData();
  const file = [...form.values()].find((v) => typeof v !== 'string') as Blob | undefined;
  const bytes = file ? Buffer.from(await file.arrayBuffer()) : Buffer.alloc(0);
  return { content: bytes.toString('utf8'), bytes };
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function parseArgs(req: IncomingMessage, raw: Buffer): Args {
  const text = raw.toString('utf8');
  if (req.headers['content-type']?.includes('application/json')) return text ? JSON.parse(text) : {};
  const args: Args = {};
  for (const [key, value] of new URLSearchParams(text)) args[key] = decodeJsonField(value);
  return args;
}

function decodeJsonField(value: string): unknown {
  if (!/^[[{]/.test(value)) return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

export async function startSlackStandin(workspace?: Workspace, port = 0): Promise<SlackStandin> {
  return new SlackStandin(workspace).start(port);
}
