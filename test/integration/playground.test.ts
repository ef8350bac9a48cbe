import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ViewMessage } from '../../tools/playground/channel.js';
import { type Playground, startPlayground } from '../../tools/playground/server.js';
import { captureLogs } from '../support/logs.js';
import { eventually } from '../support/test-app.js';

/** The playground's own API, as the page uses it (the browser test drives the page itself). */
describe('the playground server', () => {
  let playground: Playground;
  const logs = captureLogs();

  beforeEach(async () => {
    playground = await startPlayground({ log: logs.log });
  });
  afterEach(async () => {
    await playground.close();
  });

  const post = async (path: string, body: unknown) => {
    const res = await fetch(new URL(path, playground.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as { ok: boolean; error?: string } };
  };
  const messages = async () =>
    ((await (await fetch(new URL('/api/state', playground.url))).json()) as { messages: ViewMessage[] }).messages;

  /** This machine's address on its network, if it has one: where others on the network reach it. */
  const lanAddress = Object.values(networkInterfaces())
    .flat()
    .find((a) => a && !a.internal && a.family === 'IPv4')?.address;
  const answersOn = (host: string, port: number) =>
    new Promise<boolean>((resolve) => {
      const socket = connect({ host, port }, () => {
        resolve(true);
        socket.destroy();
      });
      socket.on('error', () => resolve(false));
    });

  it.skipIf(!lanAddress)('keeps the app it runs off the network: its ports answer on 127.0.0.1 only', async () => {
    const { port, metricsPort } = playground.app;
    for (const open of [port, metricsPort]) {
      expect(await answersOn('127.0.0.1', open)).toBe(true);
      expect(await answersOn(lanAddress ?? '', open), `port ${open} on ${lanAddress}`).toBe(false);
    }
  });

  it('serves the page and its assets from itself (no CDN)', async () => {
    const page = await (await fetch(playground.url)).text();
    expect(page).toContain('<script src="/app.js"></script>');
    expect(page).not.toMatch(/https?:\/\//);
    for (const asset of ['/app.js', '/style.css']) {
      expect((await fetch(new URL(asset, playground.url))).status).toBe(200);
    }
  });

  it('runs /agent to a failed job when the knob says so, and the thread says what to do', async () => {
    expect(await post('/api/knobs', { jobDurationSec: 0, nextEnd: 'failed' })).toMatchObject({ status: 200 });
    expect((await post('/api/send', { text: '/agent Document <webhooks>' })).body).toEqual({ ok: true });
    const root = await eventually(async () =>
      (await messages()).find((m) => m.html.includes('asked the Mintlify agent')),
    );
    expect(root.html).toContain('Document &lt;webhooks&gt;');
    const outcome = await eventually(
      async () => (await messages()).find((m) => m.threadTs === root.ts && m.ts !== root.ts),
      10_000,
      'the outcome in the thread',
    );
    expect(outcome.html).toContain('The agent job failed');
  });

  it.each(['/agent', '/agent help'])(
    'shows the direct answer to %s (the usage the empty page suggests), only to the person',
    async (text) => {
      expect((await post('/api/send', { text })).body).toEqual({ ok: true });
      const answer = await eventually(async () => (await messages()).find((m) => m.html.includes('Start a Mintlify')));
      expect(answer).toMatchObject({ bot: true, ephemeral: true });
      expect(answer.html).toContain('/agent &lt;instruction&gt;');
    },
  );

  it('opens the assistant pane: prompts offered, a message in its thread starts a job answered there', async () => {
    const opened = (await post('/api/assistant', {})).body as { ok: boolean; threadTs: string };
    expect(opened.ok).toBe(true);
    const me = playground.slack.workspace.users.find((u) => !u.isBot)?.id;
    const pane = playground.slack.tenant().assistantThread(`D${me}`, opened.threadTs);
    await eventually(() => pane?.suggestedPrompts, 5_000, 'the suggested prompts');
    const sent = await post('/api/send', { text: 'Document <webhooks>', threadTs: opened.threadTs });
    expect(sent.body).toEqual({ ok: true });
    const root = await eventually(async () =>
      (await messages()).find((m) => m.threadTs === opened.threadTs && m.html.includes('asked the Mintlify agent')),
    );
    expect(root.html).toContain('Document &lt;webhooks&gt;');
    expect(pane?.title).toBe('Document <webhooks>');
  });

  it('answers bad input clearly and keeps running', async () => {
    expect((await post('/api/send', { text: '/nope' })).body).toEqual({
      ok: false,
      error: '/nope is not a valid command. Try /agent, /visitors or /insights.',
    });
    expect((await post('/api/send', { text: '   ' })).body).toMatchObject({ ok: false });
    expect((await post('/api/knobs', { nextEnd: 'exploded' })).status).toBe(400);
    expect((await post('/api/action', { key: 'nope', actionId: 'x' })).body).toEqual({
      ok: false,
      error: 'That message is gone.',
    });
    expect((await fetch(new URL('/files/F404', playground.url))).status).toBe(404);
    expect((await fetch(new URL('/api/state', playground.url))).status).toBe(200);
  });
});
