import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { type WebSocket, WebSocketServer } from 'ws';
import type { SlackStandin } from './server.js';

/** What Slack sends over a Socket Mode connection, and how the app answered. */
export interface Envelope {
  envelope_id: string;
  type: 'events_api' | 'slash_commands' | 'interactive';
  payload: Record<string, unknown>;
  retry_attempt: number;
  sentAt: number;
  /** When the app acknowledged it, and the payload it sent with the ack (a command's immediate answer). */
  ackedAt?: number;
  ackPayload?: Record<string, unknown>;
}

/** Slack pings its Socket Mode clients; the SDK reconnects when it hears nothing for 30 s. */
const PING_INTERVAL_MS = 10_000;

/**
 * Slack's Socket Mode end on 127.0.0.1, attached to a stand-in: its `apps.connections.open` (app token) hands out
 * this server's `ws://` URL. Says `hello` to each connection, delivers envelopes, records their acks.
 */
export class SocketModeStandin {
  readonly envelopes: Envelope[] = [];
  /** Connections opened so far (a reconnect adds one). */
  connectionCount = 0;
  private server?: WebSocketServer;
  private readonly sockets = new Set<WebSocket>();
  private readonly waiters = new Map<string, () => void>();
  private seq = 0;
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
      for (const socket of this.sockets) socket.ping();
    }, PING_INTERVAL_MS).unref();
    return this;
  }

  async close(): Promise<void> {
    clearInterval(this.ping);
    for (const socket of this.sockets) socket.terminate();
    this.slack.socketModeUrl = undefined;
    await new Promise((resolve) => this.server?.close(resolve));
  }

  get connected(): boolean {
    return this.sockets.size > 0;
  }

  /** Drops every connection without a close handshake, as a network failure would. */
  drop(): void {
    for (const socket of this.sockets) socket.terminate();
  }

  /** Asks the app to reconnect, as Slack does before recycling a server. */
  refresh(): void {
    for (const socket of this.sockets) socket.send(JSON.stringify({ type: 'disconnect', reason: 'refresh_requested' }));
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

  /** Sends an envelope to one connection and resolves when it is acked; rejects after `timeoutMs` without an ack. */
  deliver(type: Envelope['type'], payload: Record<string, unknown>, retryAttempt = 0, timeoutMs = 10_000) {
    const [socket] = this.sockets;
    if (!socket) return Promise.reject(new Error('no Socket Mode connection'));
    const envelope: Envelope = {
      envelope_id: `env-${++this.seq}-${Date.now()}`,
      type,
      payload,
      retry_attempt: retryAttempt,
      sentAt: Date.now(),
    };
    this.envelopes.push(envelope);
    const acked = new Promise<Envelope>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(envelope.envelope_id);
        reject(new Error(`envelope ${envelope.envelope_id} (${type}) was not acknowledged in ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiters.set(envelope.envelope_id, () => {
        clearTimeout(timer);
        resolve(envelope);
      });
    });
    socket.send(
      JSON.stringify({
        envelope_id: envelope.envelope_id,
        type,
        payload,
        accepts_response_payload: type !== 'events_api',
        ...(type === 'events_api' && {
          retry_attempt: retryAttempt,
          retry_reason: retryAttempt > 0 ? 'timeout' : '',
        }),
      }),
    );
    return acked;
  }

  private accept(socket: WebSocket): void {
    this.connectionCount += 1;
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => this.sockets.delete(socket));
    socket.on('message', (data) => {
      let message: { envelope_id?: string; payload?: Record<string, unknown> };
      try {
        message = JSON.parse(String(data));
      } catch {
        return;
      }
      const envelope = this.envelopes.find((e) => e.envelope_id === message.envelope_id);
      if (!envelope || envelope.ackedAt) return;
      envelope.ackedAt = Date.now();
      if (message.payload && Object.keys(message.payload).length) envelope.ackPayload = message.payload;
      this.waiters.get(envelope.envelope_id)?.();
      this.waiters.delete(envelope.envelope_id);
    });
    socket.send(
      JSON.stringify({
        type: 'hello',
        num_connections: this.sockets.size,
        debug_info: { host: 'slack-standin', approximate_connection_time: 18_060 },
        connection_info: { app_id: this.slack.workspace.appId },
      }),
    );
  }
}

/** Starts a Socket Mode server for `slack` (which must be started). */
export function startSocketModeStandin(slack: SlackStandin, port = 0): Promise<SocketModeStandin> {
  return new SocketModeStandin(slack).start(port);
}
