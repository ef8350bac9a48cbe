import { describe, expect, it } from 'vitest';
import { buttonClick, buttonsIn, CHANNEL_ID, threadReply, USER_ID } from '../fixtures/slack.js';
import { useHarness } from '../support/harness.js';
import { redisAvailable, redisStore, splitRedis } from '../support/redis.js';
import { startRedisProxy } from '../support/redis-proxy.js';
import { ackedInTime, settle } from '../support/steps.js';
import { eventually } from '../support/test-app.js';

/** The real app in Socket Mode (the manifest's default) against the stand-in's Socket Mode server. */
describe('Socket Mode', () => {
  const h = useHarness({ slack: { socketMode: true }, start: { slackRetry: { initialMs: 50, maxMs: 200 } } });

  it('/healthz is 503 until the connection is up, then 200', async () => {
    h.slack.fail('apps.connections.open', { status: 503 }, 2);
    let port = 0;
    const starting = h.boot({
      slackRetry: { initialMs: 100, maxMs: 200 },
      onListening: (p) => {
        port = p;
      },
    });
    await eventually(() => port, 5_000, 'the port');
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(503);
    const app = await starting;
    expect(h.socket.connected).toBe(true);
    expect(h.slack.callsTo('apps.connections.open')).toHaveLength(3);
    expect(app.logs().match(/"variable":"SLACK_APP_TOKEN"/g)).toHaveLength(2);
    expect((await fetch(`${app.url}/healthz`)).status).toBe(200);
  });

  it('a refused app token stops the start, naming SLACK_APP_TOKEN, never its value', async () => {
    const error = await h
      .boot({
        env: { SLACK_APP_TOKEN: 'xapp-wrong-SECRETVALUE' },
        slackRetry: { initialMs: 50, maxMs: 100 },
      })
      .then(
        () => undefined,
        (e: unknown) => e as Error,
      );
    expect(error?.message).toBe('SLACK_APP_TOKEN: Slack refused this token (invalid_auth)');
  });

  it('/agent starts a job, acknowledged in time, with the prompt as typed', async () => {
    await h.boot();
    await h.startJob('Fix the <Note> callout & link');
    expect(h.sim.requests.find((r) => r.method === 'POST')?.body).toEqual({ prompt: 'Fix the <Note> callout & link' });
  });

  it('a thread reply is one follow-up, even when Slack redelivers it in a new envelope', async () => {
    await h.boot();
    const { rootTs } = await h.startJob('Document webhooks');
    const reply = threadReply(rootTs, { text: 'Also the retry policy' });
    await h.deliver(reply);
    await h.deliver(reply, { retry: 1 });
    await eventually(() => h.followUps().length, 5_000, 'the follow-up');
    await settle(300);
    expect(h.followUps()).toHaveLength(1);
    expect(h.followUps()[0]?.body).toEqual({ prompt: 'Also the retry policy' });
    expect(new Set(h.socket.envelopes.map((e) => e.envelope_id)).size).toBe(h.socket.envelopes.length);
  });

  it('/visitors answers, and a click on its report is acknowledged and answered', async () => {
    await h.boot();
    await h.command('/visitors 7d');
    const report = await h.answer();
    const buttons = buttonsIn(report.args.blocks);
    expect(buttons.length).toBeGreaterThan(0);
    const share = buttons.find((b) => b.button.action_id === 'visitors.share') ?? buttons[0];
    if (!share) throw new Error('no button in the report');
    ackedInTime(
      await h.socket.interaction(
        buttonClick(share.button, {
          blockId: share.blockId,
          ephemeral: true,
          responseUrl: h.slack.responseUrl('click'),
        }),
      ),
    );
    await eventually(
      () => h.slack.callsTo('chat.postMessage').length + h.slack.callsTo('response_url:click').length,
      5_000,
      'the click answered',
    );
  });

  it('reconnects after the connection drops, and serves again', async () => {
    await h.boot();
    // Slack slow to hand out the next URL: the app is without a connection meanwhile.
    h.slack.fail('apps.connections.open', { delayMs: 1_000 }, 1);
    h.socket.drop();
    await eventually(() => !h.socket.connected, 2_000, 'the drop');
    await eventually(async () => (await fetch(`${h.app.url}/healthz`)).status === 503, 1_000, '/healthz 503 meanwhile');
    await eventually(() => h.socket.connected && h.socket.connectionCount === 2, 5_000, 'the reconnection');
    await eventually(async () => (await fetch(`${h.app.url}/healthz`)).status === 200, 5_000, '/healthz 200 again');
    await h.startJob('After the reconnect');
  }, 30_000);

  it('reconnects even when Slack cannot be reached for a while after the drop', async () => {
    await h.boot();
    h.slack.fail('apps.connections.open', { status: 503 }, 2);
    h.socket.drop();
    await eventually(() => h.socket.connected && h.socket.connectionCount === 2, 25_000, 'the reconnection');
    expect(h.slack.callsTo('apps.connections.open').length).toBeGreaterThanOrEqual(3);
    await eventually(async () => (await fetch(`${h.app.url}/healthz`)).status === 200, 5_000, '/healthz 200 again');
    expect(h.app.logs()).toContain('"event":"slack.not_ready"');
    await h.startJob('After Slack came back');
  }, 40_000);

  it('reconnects at once when Slack asks (warning, refresh_requested), and serves on the new connection', async () => {
    await h.boot();
    for (const reason of ['warning', 'refresh_requested'] as const) {
      const next = h.socket.connectionCount + 1;
      h.socket.askToReconnect(reason);
      await eventually(() => h.socket.openConnections.includes(next), 1_500, `the new connection after ${reason}`);
      expect(h.socket.openConnections).toEqual([next]);
      await h.startJob(`After ${reason}`);
    }
    expect(h.app.logs()).not.toContain('"level":"error"');
  });

  it('Socket Mode turned off (link_disabled) is an error saying what to do, /healthz 503, no busy loop; served again once on', async () => {
    const app = await h.boot({ slackRetry: { initialMs: 50, maxMs: 1_000 } });
    const opened = h.slack.callsTo('apps.connections.open').length;
    h.socket.disable();
    const said = await eventually(
      () =>
        app
          .logs()
          .split('\n')
          .find((line) => line.includes('"event":"slack.socket_mode_disabled"')),
      3_000,
      'the error',
    );
    expect(JSON.parse(said)).toMatchObject({ level: 'error', message: expect.stringContaining('Socket Mode') });
    expect((await fetch(`${app.url}/healthz`)).status).toBe(503);
    await settle(700);
    expect(h.slack.callsTo('apps.connections.open').length - opened).toBeLessThanOrEqual(1);
    h.socket.enable();
    await eventually(() => h.socket.connected, 5_000, 'the connection once Socket Mode is on');
    await eventually(async () => (await fetch(`${app.url}/healthz`)).status === 200, 5_000, '/healthz 200 again');
    await h.startJob('After Socket Mode came back');
    expect(app.logs().match(/"event":"slack\.socket_mode_disabled"/g)).toHaveLength(1);
  });
});

/** Two web instances, each holding a connection (Slack gives each envelope to one of them), on one Redis. */
describe.skipIf(!redisAvailable)('Socket Mode, two web instances', () => {
  const h = useHarness({
    store: splitRedis,
    slack: { socketMode: true },
    start: { slackRetry: { initialMs: 50, maxMs: 200 } },
  });

  it('a mention and its redelivery, given to different instances, start one job; each /healthz follows its own socket', async () => {
    const first = await h.boot();
    const second = await h.boot({ env: { ROLE: 'web' } });
    await eventually(() => h.socket.openConnections.length === 2, 5_000, 'both connections');
    const mention = h.say(USER_ID, CHANNEL_ID, '@Mintlify document the <Tabs> component');
    await h.deliver(mention.events);
    await h.deliver(mention.events, { retry: 1 });
    const connections = new Set(h.socket.envelopes.map((e) => e.connection));
    expect(connections.size).toBe(2);
    await h.jobOf(CHANNEL_ID, mention.ts);
    await settle();
    expect(h.creates().map((r) => r.body)).toEqual([{ prompt: 'document the <Tabs> component' }]);

    const [firstConnection] = h.socket.openConnections;
    h.socket.drop(firstConnection);
    const healthz = async (app: { url: string }) => (await fetch(`${app.url}/healthz`)).status;
    await eventually(async () => (await healthz(first)) === 503 || h.socket.openConnections.length === 2, 2_000);
    expect(await healthz(second)).toBe(200);
    await eventually(() => h.socket.openConnections.length === 2, 10_000, 'the reconnection');
    await eventually(async () => (await healthz(first)) === 200, 5_000, 'the first instance healthy again');
  }, 30_000);
});

/** A Redis that hangs must not hold the ack: Slack shows the person an error 3 s after the command. */
describe.skipIf(!redisAvailable)('Socket Mode, Redis hanging', () => {
  const h = useHarness({ store: redisStore, slack: { socketMode: true } });

  it('a command is acknowledged within 3 s and answered with its text', async () => {
    const proxy = await startRedisProxy();
    try {
      await h.boot({ redisUrl: proxy.url });
      proxy.pause();
      await h.command('/agent Document <retries>');
      const answer = await h.answer(undefined, 0, 3_500);
      expect(String(answer.args.text)).toContain('Document &lt;retries&gt;');
    } finally {
      await proxy.resume();
      await h.stopApps();
      await proxy.close();
    }
  });
});
