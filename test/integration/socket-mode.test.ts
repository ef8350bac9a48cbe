import { describe, expect, it } from 'vitest';
import { buttonClick, buttonsIn, threadReply } from '../fixtures/slack.js';
import { useHarness } from '../support/harness.js';
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
    h.socket.drop();
    await eventually(() => !h.socket.connected, 2_000, 'the drop');
    await eventually(async () => (await fetch(`${h.app.url}/healthz`)).status === 503, 2_000, '/healthz 503 meanwhile');
    await eventually(() => h.socket.connected && h.socket.connectionCount === 2, 15_000, 'the reconnection');
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
});
