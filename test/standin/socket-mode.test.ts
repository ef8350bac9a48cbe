import { once } from 'node:events';
import { webApi } from '@slack/bolt';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import {
  MAX_CONNECTIONS,
  type SlackStandin,
  type SocketModeStandin,
  startSlackStandin,
  startSocketModeStandin,
} from '../../tools/slack-standin/index.js';
import { eventually } from '../support/test-app.js';

/** One Socket Mode connection as a bare client sees it: every message Slack sent, and its acks. */
interface Client {
  ws: WebSocket;
  received: Record<string, unknown>[];
  ack(envelopeId: string): void;
}

/**
 * The stand-in's Socket Mode end at the protocol level (docs.slack.dev "Socket Mode": hello, envelopes and acks,
 * several connections, `disconnect` messages), driven by a bare WebSocket client that acknowledges only when told.
 */
describe('Slack stand-in: Socket Mode', () => {
  let slack: SlackStandin;
  let socket: SocketModeStandin;
  const clients: Client[] = [];

  const connect = async (): Promise<Client> => {
    const open = await new webApi.WebClient(slack.workspace.appToken, {
      slackApiUrl: slack.apiUrl,
      retryConfig: { retries: 0 },
    }).apps.connections.open();
    const ws = new WebSocket(String(open.url));
    const received: Record<string, unknown>[] = [];
    ws.on('message', (data) => received.push(JSON.parse(String(data))));
    await once(ws, 'open');
    const client = { ws, received, ack: (id: string) => ws.send(JSON.stringify({ envelope_id: id })) };
    clients.push(client);
    await eventually(() => received.length, 2_000, 'the first message');
    return client;
  };
  const envelopesOf = (client: Client) => client.received.filter((m) => m.envelope_id);
  const event = (id: string) => ({ type: 'event_callback', event_id: id, event: { type: 'app_home_opened' } });

  beforeEach(async () => {
    slack = await startSlackStandin();
    socket = await startSocketModeStandin(slack);
  });
  afterEach(async () => {
    for (const { ws } of clients.splice(0)) ws.terminate();
    await socket.close();
    await slack.close();
  });

  it('says hello with the number of connections, and gives each envelope to one connection in turn', async () => {
    const a = await connect();
    const b = await connect();
    expect(a.received[0]).toMatchObject({ type: 'hello', num_connections: 1, connection_info: { app_id: 'A1' } });
    expect(b.received[0]).toMatchObject({ type: 'hello', num_connections: 2 });
    const first = socket.event(event('Ev1'));
    const second = socket.event(event('Ev2'));
    await eventually(() => envelopesOf(a).length + envelopesOf(b).length === 2, 2_000, 'both envelopes');
    expect(envelopesOf(a)).toHaveLength(1);
    expect(envelopesOf(b)).toHaveLength(1);
    for (const client of [a, b]) client.ack(String(envelopesOf(client)[0]?.envelope_id));
    expect((await first).ackedAt).toBeDefined();
    expect((await second).ackedAt).toBeDefined();
  });

  it('takes an ack only on the connection the envelope went out on', async () => {
    const a = await connect();
    const b = await connect();
    void socket.event(event('Ev1')).catch(() => {});
    await eventually(() => envelopesOf(a)[0] ?? envelopesOf(b)[0], 2_000, 'the envelope');
    const [holder, other] = envelopesOf(a).length ? [a, b] : [b, a];
    other.ack(String(envelopesOf(holder)[0]?.envelope_id));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(socket.envelopes[0]?.ackedAt).toBeUndefined();
  });

  it('sends an event again, in a new envelope on the next connection, when its connection closed unacknowledged', async () => {
    const a = await connect();
    const delivered = socket.event(event('Ev1'));
    await eventually(() => envelopesOf(a).length, 2_000, 'the envelope');
    a.ws.terminate();
    await eventually(() => !socket.connected, 2_000, 'the drop');
    const b = await connect();
    const again = await eventually(() => envelopesOf(b)[0], 2_000, 'the redelivery');
    expect(again).toMatchObject({ type: 'events_api', retry_attempt: 1, retry_reason: 'timeout' });
    expect(again.payload).toMatchObject({ event_id: 'Ev1' });
    expect(again.envelope_id).not.toBe(envelopesOf(a)[0]?.envelope_id);
    b.ack(String(again.envelope_id));
    expect((await delivered).retry_attempt).toBe(1);
  });

  it('holds an event until a connection opens; a command finding none fails at once', async () => {
    const waiting = socket.event(event('Ev1'));
    await expect(socket.slashCommand({ command: '/agent', text: 'hi' })).rejects.toThrow(/dispatch_failed/);
    const a = await connect();
    const envelope = await eventually(() => envelopesOf(a)[0], 2_000, 'the held event');
    a.ack(String(envelope.envelope_id));
    await expect(waiting).resolves.toMatchObject({ retry_attempt: 0 });
  });

  it('fails a command whose connection closed before its ack (Slack does not send it again)', async () => {
    const a = await connect();
    const command = socket.slashCommand({ command: '/agent', text: 'hi' });
    await eventually(() => envelopesOf(a).length, 2_000, 'the envelope');
    a.ws.terminate();
    await expect(command).rejects.toThrow(/closed before its ack/);
  });

  it('asks to reconnect (warning, refresh_requested), prefers the other connections meanwhile, then closes', async () => {
    const a = await connect();
    socket.askToReconnect('warning', 300);
    await eventually(() => a.received.some((m) => m.type === 'disconnect'), 2_000, 'the warning');
    expect(a.received.at(-1)).toMatchObject({
      type: 'disconnect',
      reason: 'warning',
      debug_info: { host: expect.any(String) },
    });
    const b = await connect();
    void socket.event(event('Ev1')).catch(() => {});
    await eventually(() => envelopesOf(b).length, 2_000, 'the envelope on the new connection');
    expect(envelopesOf(a)).toHaveLength(0);
    await eventually(() => a.ws.readyState === WebSocket.CLOSED, 2_000, 'Slack closing the old connection');
    socket.refresh();
    await eventually(() => b.received.some((m) => m.reason === 'refresh_requested'), 2_000, 'refresh_requested');
  });

  it('turned off: link_disabled on every connection, closed, and new connections refused the same way until on again', async () => {
    const a = await connect();
    socket.disable();
    await once(a.ws, 'close');
    expect(a.received.at(-1)).toMatchObject({ type: 'disconnect', reason: 'link_disabled' });
    const b = await connect();
    expect(b.received).toEqual([expect.objectContaining({ type: 'disconnect', reason: 'link_disabled' })]);
    socket.enable();
    const c = await connect();
    expect(c.received[0]).toMatchObject({ type: 'hello' });
  });

  it(`keeps ${MAX_CONNECTIONS} connections at most: the next is told too_many_websockets and closed`, async () => {
    for (let i = 0; i < MAX_CONNECTIONS; i++) await connect();
    const extra = await connect();
    expect(extra.received).toEqual([expect.objectContaining({ type: 'disconnect', reason: 'too_many_websockets' })]);
    await eventually(() => extra.ws.readyState === WebSocket.CLOSED, 2_000, 'the extra connection closed');
    expect(socket.openConnections).toHaveLength(MAX_CONNECTIONS);
  });
});
