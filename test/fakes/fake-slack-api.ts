import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

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

/** A message the fake stored, as `conversations.history`/`replies` return it. */
interface StoredMessage {
  channel: string;
  ts: string;
  thread_ts?: string;
  text?: unknown;
  metadata?: unknown;
}

export const BOT_USER_ID = 'UBOT';
export const BOT_ID = 'BBOT';

/**
 * A fake Slack Web API on 127.0.0.1. Answers every method with `ok: true` (plus a fresh `ts` for posts),
 * records what it received, and fails the next matching calls on demand.
 */
export class FakeSlackApi {
  readonly calls: SlackCall[] = [];
  readonly messages: StoredMessage[] = [];
  /** The workspace's people by id, as `users.info` answers (display names). */
  readonly users = new Map<string, string>([
    ['U123ALICE', 'alice'],
    ['U456BOB', 'Bob Lee'],
  ]);
  private readonly faults: {
    method: string;
    fault: SlackFault;
    remaining: number;
    when?: ((args: Record<string, unknown>) => boolean) | undefined;
  }[] = [];
  private server?: Server;
  private seq = 0;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      void this.handle(req).then(({ status, headers, body }) => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(JSON.stringify(body));
      });
    });
    this.server.listen(0, '127.0.0.1');
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

  /** Makes the next `count` calls of `method` (those `when` accepts, if given) fail with `fault`. */
  fail(method: string, fault: SlackFault, count = 1, when?: (args: Record<string, unknown>) => boolean): void {
    this.faults.push({ method, fault, remaining: count, when });
  }

  callsTo(method: string): SlackCall[] {
    return this.calls.filter((c) => c.method === method);
  }

  reset(): void {
    this.calls.length = 0;
    this.faults.length = 0;
  }

  private async handle(req: IncomingMessage) {
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

    const fault = this.faults.find((f) => f.method === method && f.remaining > 0 && (f.when?.(args) ?? true));
    if (fault) {
      fault.remaining -= 1;
      const f = fault.fault;
      if ('storeThen' in f) {
        const body = this.answer(method, args);
        await f.storeThen();
        return { status: 200, headers: {}, body };
      }
      if ('delayMs' in f) {
        await new Promise((resolve) => setTimeout(resolve, f.delayMs));
        return { status: 200, headers: {}, body: this.answer(method, args) };
      }
      // Slack can store a message and still answer 5xx.
      if ('afterStoring' in f && f.afterStoring) this.answer(method, args);
      if ('error' in f) return { status: 200, headers: {}, body: { ok: false, error: f.error } };
      if (f.status === 429) {
        return {
          status: 429,
          headers: { 'retry-after': String(f.retryAfterSec) },
          body: { ok: false, error: 'ratelimited' },
        };
      }
      return { status: f.status, headers: {}, body: { ok: false, error: 'internal_error' } };
    }
    return { status: 200, headers: {}, body: this.answer(method, args) };
  }

  private answer(method: string, args: Record<string, unknown>): Record<string, unknown> {
    const ts = () => `${1_700_000_000 + ++this.seq}.000100`;
    switch (method) {
      case 'auth.test':
        return { ok: true, user_id: BOT_USER_ID, bot_id: BOT_ID, team_id: 'T1', user: 'mintlify' };
      case 'chat.postMessage': {
        const message: StoredMessage = {
          channel: String(args.channel),
          ts: ts(),
          text: args.text,
          ...(typeof args.thread_ts === 'string' && { thread_ts: args.thread_ts }),
          ...(args.metadata !== undefined && { metadata: args.metadata }),
        };
        this.messages.push(message);
        return { ok: true, channel: args.channel, ts: message.ts, message: { text: args.text } };
      }
      case 'conversations.replies':
      case 'conversations.history': {
        const withMetadata = args.include_all_metadata === true || args.include_all_metadata === 'true';
        const inThread = (m: StoredMessage) => m.ts === args.ts || m.thread_ts === args.ts;
        const found = this.messages
          .filter(
            (m) => m.channel === args.channel && (method === 'conversations.replies' ? inThread(m) : !m.thread_ts),
          )
          .map(({ metadata, ...m }) => ({ ...m, ...(withMetadata && metadata !== undefined && { metadata }) }));
        return { ok: true, messages: found, has_more: false };
      }
      case 'users.info': {
        const name = this.users.get(String(args.user));
        return name
          ? { ok: true, user: { id: args.user, name, real_name: name, profile: { display_name: name } } }
          : { ok: false, error: 'user_not_found' };
      }
      case 'chat.postEphemeral':
        return { ok: true, message_ts: ts() };
      case 'chat.update':
        return { ok: true, channel: args.channel, ts: args.ts };
      case 'files.getUploadURLExternal':
        return { ok: true, upload_url: `${this.url}/upload/F${++this.seq}`, file_id: `F${this.seq}` };
      // --- visitors charts (issue 12): the DM a chart is sent to ---
      case 'conversations.open':
        return { ok: true, channel: { id: `D${String(args.users ?? '').split(',')[0]}` } };
      // --- end visitors charts ---
      case 'files.completeUploadExternal':
        return { ok: true, files: (args.files as { id: string }[] | undefined)?.map((f) => ({ id: f.id })) ?? [] };
      default:
        return { ok: true };
    }
  }
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function parseArgs(req: IncomingMessage, raw: Buffer): Record<string, unknown> {
  const text = raw.toString('utf8');
  if (req.headers['content-type']?.includes('application/json')) return text ? JSON.parse(text) : {};
  const args: Record<string, unknown> = {};
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

export async function startFakeSlackApi(): Promise<FakeSlackApi> {
  return new FakeSlackApi().start();
}
