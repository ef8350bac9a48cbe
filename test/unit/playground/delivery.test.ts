import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isValidSlackRequest } from '@slack/bolt';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDelivery, type Delivery } from '../../../tools/playground/delivery.js';
import { type SlackStandin, startSlackStandin } from '../../../tools/slack-standin/index.js';

const SECRET = 'playground-test-secret';

/** What the app would receive on /slack/events. */
interface Received {
  body: string;
  headers: IncomingMessage['headers'];
}

describe('playground delivery: what a person types, as Slack sends it', () => {
  let slack: SlackStandin;
  let server: Server;
  let received: Received[];
  let delivery: Delivery;
  /** What the app answers each request with. */
  let answer: { type: string; body: string };

  beforeEach(async () => {
    slack = await startSlackStandin();
    received = [];
    answer = { type: 'text/plain', body: '' };
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ body: Buffer.concat(chunks).toString('utf8'), headers: req.headers });
        res.setHeader('content-type', answer.type);
        res.end(answer.body);
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const appUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    delivery = createDelivery({ slack, appUrl, signingSecret: SECRET });
  });

  afterEach(async () => {
    server.close();
    await slack.close();
  });

  const user = () => slack.workspace.users[0] as NonNullable<SlackStandin['workspace']['users'][0]>;
  const channel = () => slack.workspace.channels[0] as NonNullable<SlackStandin['workspace']['channels'][0]>;
  /** Who types, and where: the same in every test. */
  const from = () => ({ user: user(), channel: channel() });
  const valid = (r: Received, secret = SECRET) =>
    isValidSlackRequest({
      signingSecret: secret,
      body: r.body,
      headers: {
        'x-slack-signature': String(r.headers['x-slack-signature']),
        'x-slack-request-timestamp': Number(r.headers['x-slack-request-timestamp']),
      },
    });

  it('signs a slash command the way Bolt verifies it, with the typed text wire-escaped', async () => {
    await delivery.command({
      command: '/agent',
      text: 'Fix <b> & "quotes"',
      ...from(),
      responseUrl: slack.responseUrl('x'),
    });
    const [request] = received;
    if (!request) throw new Error('nothing delivered');
    expect(valid(request)).toBe(true);
    expect(valid(request, 'another-secret')).toBe(false);
    expect(request.headers['content-type']).toBe('application/x-www-form-urlencoded');
    const fields = Object.fromEntries(new URLSearchParams(request.body));
    expect(fields).toMatchObject({
      command: '/agent',
      text: 'Fix &lt;b&gt; &amp; "quotes"',
      user_id: user().id,
      channel_id: channel().id,
      response_url: slack.responseUrl('x'),
    });
  });

  it('hands back a command’s direct reply as Slack reads it: JSON, plain text, or nothing', async () => {
    const command = () => delivery.command({ command: '/agent', text: 'help', ...from(), responseUrl: 'x' });
    answer = { type: 'application/json', body: '{"response_type":"ephemeral","text":"usage"}' };
    expect(await command()).toEqual({ response_type: 'ephemeral', text: 'usage' });
    answer = { type: 'text/plain', body: 'plain words' };
    expect(await command()).toEqual({ text: 'plain words' });
    answer = { type: 'text/plain', body: '' };
    expect(await command()).toBeUndefined();
  });

  it('delivers a message that mentions the bot twice, as message and app_mention, one client_msg_id', async () => {
    const text = delivery.encode('@mintlify please & thanks');
    expect(text).toBe(`<@${slack.workspace.botUserId}> please &amp; thanks`);
    await delivery.message({ text, ts: '1.000001', threadTs: '1.000000', ...from() });
    expect(received).toHaveLength(2);
    const [message, mention] = received.map(
      (r) => JSON.parse(r.body) as { event_id: string; event: Record<string, unknown> },
    );
    expect(received.every((r) => valid(r))).toBe(true);
    expect(message?.event).toMatchObject({ type: 'message', text, thread_ts: '1.000000', user: user().id });
    expect(mention?.event).toMatchObject({ type: 'app_mention', text, client_msg_id: message?.event.client_msg_id });
    expect(mention?.event_id).not.toBe(message?.event_id);
  });

  it('delivers a button click as block_actions with its response_url and container', async () => {
    await delivery.action({
      actionId: 'visitors.next',
      value: '{"offset":5}',
      ...from(),
      messageTs: '2.000000',
      ephemeral: true,
      responseUrl: slack.responseUrl('y'),
    });
    const [request] = received;
    if (!request) throw new Error('nothing delivered');
    expect(valid(request)).toBe(true);
    const payload = JSON.parse(new URLSearchParams(request.body).get('payload') ?? '{}');
    expect(payload).toMatchObject({
      type: 'block_actions',
      response_url: slack.responseUrl('y'),
      container: { message_ts: '2.000000', is_ephemeral: true, channel_id: channel().id },
      actions: [{ action_id: 'visitors.next', value: '{"offset":5}', type: 'button' }],
    });
  });
});
