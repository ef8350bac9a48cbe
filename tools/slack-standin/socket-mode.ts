import { once } from 'node:events';
import type { AddressInfo, Socket } from 'node:net';
import { type WebSocket, WebSocketServer } from 'ws';
import type { SlackStandin } from './server.js';

/** What Slack sends over a Socket Mode connection, and how the app answered. */
export interface Envelope {
  envelope_id: string;
  type: 'events_api' | 'slash_commands' | 'interactive';
  payload: Record<string, unknown>;
  retry_attempt: number;
  sentAt: number;
  /** The connection it went out on last (1 for the first connection opened, 2 for the next…). */
  connection?: number;
  /** When the app acknowledged it, and the payload it sent with the ack (a command's immediate answer). */
  ackedAt?: number;
  ackPayload?: Record<string, unknown>;
}

/** Why Slack closes a connection, in the `disconnect` message it sends first (Socket Mode, "Handle disconnects"). */
export type DisconnectReason = 'refresh_requested' | 'warning' | 'link_disabled' | 'too_many_websockets';

/** Slack pings its Socket Mode clients; the SDK reconnects when it hears nothing for 30 s. */
const PING_INTERVAL_MS = 10_000;
/** "Socket Mode allows your app to maintain up to 10 open WebSocket connections at the same time." */
export const MAX_CONNECTIONS = 10;
/** "You may receive a warning about 10 seconds before the disconnect." */
const WARNING_MS = 10_000;

interface Link {
  id: number;
  socket: WebSocket;
  /** Told to reconnect: Slack gives it envelopes only when no other connection is open. */
  draining: boolean;
}

interface Waiter {
  resolve(envelope: Envelope): void;
  reject(error: Error): void;
}

/**
 * Slack's Socket Mode end on 127.0.0.1, attached to a stand-in: its `apps.connections.open` (app token) hands out
 * this server's `ws://` URL. As Slack does (docs.slack.dev "Socket Mode", "Using multiple connections", "Handle
 * disconnects"): says `hello` to each connection (up to 10; the 11th is told `too_many_websockets` and closed), gives
 * each envelope to one open connection (in turn), takes an ack only on the connection the envelope went out on, and
 * asks connections to reconnect (`warning`, `refresh_requested`) before closing them itself. An event whose connection
 * closed before the ack is sent again in a new envelope on another (the next to open, if none is), `retry_attempt`
 * one higher and `event_id` unchanged; an event finding no connection waits for one; a command or an interaction is not (the person sees it fail). Turned off in the app's settings
 * (`disable()`), Socket Mode tells every connection `link_disabled` and closes it, new ones too.
 */
export class SocketModeStandin {
  readonly envelopes: Envelope[] = [];
  /** Connections opened so far (a reconnect adds one, a refused one too). */
  connectionCount = 0;
  /** The `disconnect` messages sent, each with the connection it went to. */
  readonly disconnects: { connection: number; reason: DisconnectReason }[] = [];
  /** Whether Socket Mode is on in the app's settings. */
  enabled = true;
  private server?: WebSocketServer;
  private links: Link[] = [];
  /** Events waiting for a connection to open. */
  private readonly queued: Envelope[] = [];
  private readonly waiters = new Map<string, Waiter>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private seq = 0;
  private turn = 0;
  private ping?: NodeJS.Timeout;

  constructor(private readonly slack: SlackStandin) {}

  async start(port = 0): Promise<this> {
    const server = new WebSocketServer({ host: '127.0.0.1', port });
    this.server = server;
    await once(server, 'listening');
    const { port: bound } = server.address() as AddressInfo;
    this.slack.socketModeUrl = () => `ws://127.0.0.1:${bound}/link/?ticket=${++this.seq}`;
    server.on('connection', (socket) => this.accept(socket));
    this.ping = setInterval(() => {
      for (const { socket } of this.links) socket.ping();
    }, PING_INTERVAL_MS).unref();
    return this;
  }

  async close(): Promise<void> {
    clearInterval(this.ping);
    for (const timer of this.timers) clearTimeout(timer);
    for (const { socket } of this.links) socket.terminate();
    this.slack.socketModeUrl = undefined;
    await new Promise((resolve) => this.server?.close(resolve));
  }

  get connected(): boolean {
    return this.links.length > 0;
  }

  /** The connections open now, by number (1 for the first opened). */
  get openConnections(): number[] {
    return this.links.map((link) => link.id);
  }

  /** Drops every connection (or connection `id`) without a close handshake, as a network failure would. */
  drop(id?: number): void {
    for (const link of this.links) if (id === undefined || link.id === id) link.socket.terminate();
  }

  /**
   * Asks every open connection to reconnect, as Slack does before recycling a server: `warning` about 10 s before,
   * `refresh_requested` at the end of its life. Its TCP connection stays open after the app's close handshake, until
   * Slack ends it `closeAfterMs` later.
   */
  askToReconnect(reason: 'refresh_requested' | 'warning' = 'refresh_requested', closeAfterMs = WARNING_MS): void {
    for (const link of this.links) {
      // Slack answers the app's close frame but leaves the TCP connection open (@slack/socket-mode 3.2.0 changelog,
      // #2752): the app must not wait for it to close.
      const tcp = (link.socket as unknown as { _socket: Socket })._socket;
      tcp.end = () => tcp;
      tcp.once('end', () => tcp.destroy());
      link.draining = true;
      this.tell(link, reason);
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        link.socket.terminate();
      }, closeAfterMs);
      this.timers.add(timer);
    }
  }

  /** `refresh_requested` on every connection. */
  refresh(): void {
    this.askToReconnect('refresh_requested');
  }

  /** Socket Mode turned off in the app's settings: `link_disabled` on every connection, which Slack then closes. */
  disable(): void {
    this.enabled = false;
    for (const link of this.links) {
      this.tell(link, 'link_disabled');
      link.socket.close(1000);
    }
  }

  /** Socket Mode turned on again: connections opened from now on are served. */
  enable(): void {
    this.enabled = true;
  }

  /** Delivers a slash command (the same fields as over HTTP); resolves once the app acknowledges it. */
  slashCommand(fields: Record<string, string>): Promise<Envelope> {
    return this.deliver('slash_commands', fields);
  }

  /** Delivers an Events API `event_callback` body; `retryAttempt` > 0 is Slack's redelivery (same `event_id`). */
  event(body: Record<string, unknown>, retryAttempt = 0): Promise<Envelope> {
    return this.deliver('events_api', body, retryAttempt);
  }

  /** Delivers an interaction (`block_actions` and the like). */
  interaction(payload: Record<string, unknown>): Promise<Envelope> {
    return this.deliver('interactive', payload);
  }

  /**
   * Sends an envelope to one connection and resolves when it is acked; rejects after `timeoutMs` without an ack, or
   * at once for a command or an interaction that no connection can take (Slack tells the person `dispatch_failed`).
   */
  deliver(type: Envelope['type'], payload: Record<string, unknown>, retryAttempt = 0, timeoutMs = 10_000) {
    const envelope: Envelope = {
      envelope_id: this.envelopeId(),
      type,
      payload,
      retry_attempt: retryAttempt,
      sentAt: Date.now(),
    };
    if (type !== 'events_api' && !this.links.length) {
      return Promise.reject(new Error(`no Socket Mode connection for the ${type} envelope (dispatch_failed)`));
    }
    this.envelopes.push(envelope);
    const acked = new Promise<Envelope>((resolve, reject) => {
      const waiter: Waiter = {
        resolve: (e) => {
          clearTimeout(timer);
          resolve(e);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      const timer = setTimeout(() => {
        for (const [id, w] of this.waiters) if (w === waiter) this.waiters.delete(id);
        reject(new Error(`envelope ${envelope.envelope_id} (${type}) was not acknowledged in ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiters.set(envelope.envelope_id, waiter);
    });
    this.send(envelope);
    return acked;
  }

  private envelopeId(): string {
    return `env-${++this.seq}-${Date.now()}`;
  }

  /** The next connection in turn, preferring those not asked to reconnect. */
  private pick(): Link | undefined {
    const serving = this.links.filter((link) => !link.draining);
    const candidates = serving.length ? serving : this.links;
    if (!candidates.length) return undefined;
    return candidates[this.turn++ % candidates.length];
  }

  private send(envelope: Envelope): void {
    const link = this.pick();
    if (!link) {
      this.queued.push(envelope);
      return;
    }
    envelope.connection = link.id;
    envelope.sentAt = Date.now();
    link.socket.send(
      JSON.stringify({
        envelope_id: envelope.envelope_id,
        type: envelope.type,
        payload: envelope.payload,
        accepts_response_payload: envelope.type !== 'events_api',
        ...(envelope.type === 'events_api' && {
          retry_attempt: envelope.retry_attempt,
          retry_reason: envelope.retry_attempt > 0 ? 'timeout' : '',
        }),
      }),
    );
  }

  private tell(link: Link, reason: DisconnectReason): void {
    this.disconnects.push({ connection: link.id, reason });
    link.socket.send(JSON.stringify({ type: 'disconnect', reason, debug_info: { host: 'slack-standin' } }));
  }

  private accept(socket: WebSocket): void {
    const link: Link = { id: ++this.connectionCount, socket, draining: false };
    if (!this.enabled || this.links.length >= MAX_CONNECTIONS) {
      this.tell(link, this.enabled ? 'too_many_websockets' : 'link_disabled');
      socket.close(1000);
      return;
    }
    this.links.push(link);
    let gone = false;
    const onGone = () => {
      if (gone) return;
      gone = true;
      this.links = this.links.filter((l) => l !== link);
      this.unacknowledgedOn(link);
    };
    socket.on('close', onGone);
    socket.on('error', onGone);
    socket.on('message', (data) => this.acknowledge(link, data));
    socket.send(
      JSON.stringify({
        type: 'hello',
        num_connections: this.links.length,
        debug_info: { host: 'slack-standin', approximate_connection_time: 18_060 },
        connection_info: { app_id: this.slack.workspace.appId },
      }),
    );
    for (const envelope of this.queued.splice(0)) this.send(envelope);
  }

  private acknowledge(link: Link, data: unknown): void {
    let message: { envelope_id?: string; payload?: Record<string, unknown> };
    try {
      message = JSON.parse(String(data));
    } catch {
      return;
    }
    const envelope = this.envelopes.find((e) => e.envelope_id === message.envelope_id);
    if (!envelope || envelope.ackedAt || envelope.connection !== link.id) return;
    envelope.ackedAt = Date.now();
    if (message.payload && Object.keys(message.payload).length) envelope.ackPayload = message.payload;
    this.waiters.get(envelope.envelope_id)?.resolve(envelope);
    this.waiters.delete(envelope.envelope_id);
  }

  /** A connection closed: its events not acknowledged go again, elsewhere; its commands and interactions failed. */
  private unacknowledgedOn(link: Link): void {
    const unacked = this.envelopes.filter(
      (e) => e.connection === link.id && !e.ackedAt && this.waiters.has(e.envelope_id),
    );
    for (const envelope of unacked) {
      const waiter = this.waiters.get(envelope.envelope_id);
      this.waiters.delete(envelope.envelope_id);
      if (envelope.type !== 'events_api') {
        waiter?.reject(new Error(`the connection of ${envelope.type} ${envelope.envelope_id} closed before its ack`));
        continue;
      }
      // Slack's retry: a new envelope, the same event (its `event_id`).
      const { connection: _, ...event } = envelope;
      const again: Envelope = { ...event, envelope_id: this.envelopeId(), retry_attempt: envelope.retry_attempt + 1 };
      this.envelopes.push(again);
      if (waiter) this.waiters.set(again.envelope_id, waiter);
      this.send(again);
    }
  }
}

/** Starts a Socket Mode server for `slack` (which must be started). */
export function startSocketModeStandin(slack: SlackStandin, port = 0): Promise<SocketModeStandin> {
  return new SocketModeStandin(slack).start(port);
}
