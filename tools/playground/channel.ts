import type { EphemeralMessage, SlackCall, StoredMessage } from '../slack-standin/index.js';
import { emoji, messageToHtml, type RenderNames } from './render.js';

/** What the playground reads from the Slack stand-in: what was posted, and every call the app made. */
export interface SlackRecord {
  readonly calls: readonly Pick<SlackCall, 'method' | 'args'>[];
  readonly messages: readonly StoredMessage[];
  readonly ephemerals: readonly EphemeralMessage[];
}

/** Where a `response_url` answers: the conversation, who ran it, and the message an action was clicked on. */
export interface ResponseTarget {
  channel: string;
  user: string;
  threadTs?: string | undefined;
  /** The message whose button was clicked (`replace_original` / `delete_original` act on it). */
  original?: string | undefined;
}

export interface ViewFile {
  id: string;
  name: string;
  title: string;
  url: string;
  image: boolean;
}

/** One message as the page shows it. `key` stays the same while the message is updated in place. */
export interface ViewMessage {
  key: string;
  channel: string;
  ts: string;
  threadTs?: string | undefined;
  author: string;
  bot: boolean;
  /** Only the person who ran the command sees it ("Only visible to you"). */
  ephemeral: boolean;
  html: string;
  reactions: { name: string; emoji: string; count: number }[];
  files: ViewFile[];
  replies: number;
}

interface Content {
  text?: unknown;
  blocks?: unknown;
}

/**
 * Turns what the app did on the stand-in (posts, updates, deletes, ephemerals, `response_url` answers,
 * reactions, uploads) into the channel a person would see. Calls are read once each, in order.
 */
export class ChannelView {
  readonly #slack: SlackRecord;
  readonly #names: RenderNames & { user(id: string): string | undefined };
  readonly #targets = new Map<string, ResponseTarget>();
  /** Messages answered through a `response_url`, by key. */
  readonly #responses = new Map<string, { target: ResponseTarget; content: Content; inChannel: boolean; ts: string }>();
  /** New content for stand-in messages replaced through a `response_url`. */
  readonly #replaced = new Map<string, Content>();
  readonly #deleted = new Set<string>();
  readonly #reactions = new Map<string, Map<string, number>>();
  readonly #order = new Map<string, number>();
  #callsRead = 0;

  constructor(slack: SlackRecord, names: RenderNames & { user(id: string): string | undefined }) {
    this.#slack = slack;
    this.#names = names;
  }

  /** Remembers where the `response_url` with this id answers. */
  expectResponse(id: string, target: ResponseTarget): void {
    this.#targets.set(id, target);
  }

  /** Shows the app's direct reply to the command whose `response_url` has this id, as a `response_url` answer. */
  directReply(id: string, reply: Content & { response_type?: unknown }): void {
    const target = this.#targets.get(id);
    if (target) this.#respond(`d:${id}`, target, reply);
  }

  /** The channel's messages (thread replies included), oldest first, for the person `viewer`. */
  messages(viewer: string): ViewMessage[] {
    this.#readCalls();
    const out: ViewMessage[] = [];
    for (const m of this.#slack.messages) {
      const key = messageKey(m.channel, m.ts);
      if (this.#deleted.has(key)) continue;
      const content = this.#replaced.get(key) ?? m;
      out.push(this.#view(key, { ...m, threadTs: m.thread_ts }, content, m.user, !!m.bot_id, false, m.files));
    }
    for (const e of this.#slack.ephemerals) {
      if (e.user !== viewer) continue;
      const key = `e:${e.ts}`;
      if (this.#deleted.has(key)) continue;
      out.push(this.#view(key, { channel: e.channel, ts: e.ts, threadTs: e.thread_ts }, e, undefined, true, true));
    }
    for (const [key, r] of this.#responses) {
      if (this.#deleted.has(key) || (!r.inChannel && r.target.user !== viewer)) continue;
      const where = { channel: r.target.channel, ts: r.ts, threadTs: r.target.threadTs };
      out.push(this.#view(key, where, r.content, undefined, true, !r.inChannel));
    }
    for (const m of out) {
      if (!this.#order.has(m.key)) this.#order.set(m.key, this.#order.size);
    }
    out.sort((a, b) => (this.#order.get(a.key) ?? 0) - (this.#order.get(b.key) ?? 0));
    for (const m of out) {
      if (!m.threadTs || m.threadTs === m.ts)
        m.replies = out.filter((r) => r.threadTs === m.ts && r.ts !== m.ts).length;
    }
    return out;
  }

  #view(
    key: string,
    where: { channel: string; ts: string; threadTs?: string | undefined },
    content: Content,
    user: string | undefined,
    bot: boolean,
    ephemeral: boolean,
    files: { id: string; name: string; title: string }[] = [],
  ): ViewMessage {
    const reactions = [...(this.#reactions.get(messageKey(where.channel, where.ts)) ?? [])]
      .filter(([, count]) => count > 0)
      .map(([name, count]) => ({ name, emoji: emoji(name), count }));
    return {
      key,
      channel: where.channel,
      ts: where.ts,
      threadTs: where.threadTs,
      author: bot ? 'Mintlify' : (this.#names.user(user ?? '') ?? user ?? 'someone'),
      bot,
      ephemeral,
      html: messageToHtml(content, this.#names),
      reactions,
      files: files.map((f) => ({
        ...f,
        url: `/files/${encodeURIComponent(f.id)}`,
        image: /\.(png|jpe?g|gif|webp)$/i.test(f.name),
      })),
      replies: 0,
    };
  }

  #readCalls(): void {
    const { calls } = this.#slack;
    for (; this.#callsRead < calls.length; this.#callsRead++) {
      const call = calls[this.#callsRead];
      if (call) this.#apply(call.method, call.args, this.#callsRead);
    }
  }

  #apply(method: string, args: Record<string, unknown>, index: number): void {
    if (method === 'chat.delete') this.#deleted.add(messageKey(String(args.channel), String(args.ts)));
    if (method === 'reactions.add' || method === 'reactions.remove') {
      const key = messageKey(String(args.channel), String(args.timestamp));
      const counts = this.#reactions.get(key) ?? new Map<string, number>();
      const name = String(args.name);
      counts.set(name, Math.max(0, (counts.get(name) ?? 0) + (method === 'reactions.add' ? 1 : -1)));
      this.#reactions.set(key, counts);
    }
    if (!method.startsWith('response_url:')) return;
    const target = this.#targets.get(method.slice('response_url:'.length));
    if (!target) return;
    const original = target.original;
    if (args.delete_original === true || args.delete_original === 'true') {
      if (original) this.#deleted.add(original);
      return;
    }
    if ((args.replace_original === true || args.replace_original === 'true') && original) {
      const content = { text: args.text, blocks: args.blocks };
      const response = this.#responses.get(original);
      if (response) response.content = content;
      else this.#replaced.set(original, content);
      return;
    }
    this.#respond(`r:${index}`, target, args);
  }

  #respond(key: string, target: ResponseTarget, reply: Content & { response_type?: unknown }): void {
    const content = { text: reply.text, blocks: reply.blocks };
    this.#responses.set(key, { target, content, inChannel: reply.response_type === 'in_channel', ts: slackTs() });
  }
}

let lastTs = 0;

/** A Slack-style timestamp (`seconds.micros`), unique and increasing within this process. */
export function slackTs(): string {
  lastTs = Math.max(lastTs + 1, Date.now() * 1000);
  return `${Math.floor(lastTs / 1e6)}.${String(lastTs % 1e6).padStart(6, '0')}`;
}

export function messageKey(channel: string, ts: string): string {
  return `m:${channel}:${ts}`;
}
