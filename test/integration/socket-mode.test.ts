import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/server.js';
import { type Envelope, type SocketModeStandin, startSocketModeStandin } from '../../src/slack-standin/index.js';
import { type FakeSlackApi, startFakeSlackApi } from '../fakes/fake-slack-api.js';
import { buttonClick, buttonsIn, slashCommand, threadReply } from '../fixtures/slack.js';
import { eventually, startTestApp, type TestApp } from '../support/test-app.js';

/** Slack shows an error when an envelope is not acknowledged within 3 s. */
const ACK_MS = 3_000;

const ackedInTime = (envelope: Envelope) => {
  expect(envelope.ackedAt).toBeDefined();
  expect((envelope.ackedAt ?? Infinity) - envelope.sentAt).toBeLessThan(ACK_MS);
  return envelope;
};

/** The real app in Socket Mode (the manifest's default) against the stand-in's Socket Mode server. */
describe('Socket Mode', () => {
  let slack: FakeSlackApi;
  let socket: SocketModeStandin;
  let sim: Simulator;
  let app: TestApp | undefined;

  beforeEach(async () => {
    slack = await startFakeSlackApi();
    socket = await startSocketModeStandin(slack);
    sim = await startSimulator();
  });
  afterEach(async () => {
    await app?.stop();
    app = undefined;
    await socket.close();
    await sim.close();
    await slack.close();
  });

  const socketEnv = () => ({ SLACK_APP_TOKEN: slack.workspace.appToken, SLACK_SIGNING_SECRET: '' });

  async function boot(): Promise<TestApp> {
    app = await startTestApp(slack, sim.url, { env: socketEnv(), slackRetry: { initialMs: 50, maxMs: 200 } });
    await eventually(() => socket.connected, 5_000, 'the Socket Mode connection');
    return app;
  }

  async function startedJob(prompt: string): Promise<string> {
    ackedInTime(await socket.slashCommand(slashCommand({ text: prompt, response_url: slack.responseUrl() })));
    const update = await eventually(
      () => slack.callsTo('chat.update').find((c) => JSON.stringify(c.args.blocks).includes('job `')),
      5_000,
      'the root message naming its job',
    );
    return String(update.args.ts);
  }

  it('/healthz is 503 until the connection is up, then 200', async () => {
    slack.fail('apps.connections.open', { status: 503 }, 2);
    let port = 0;
    const starting = startTestApp(slack, sim.url, {
      env: socketEnv(),
      slackRetry: { initialMs: 100, maxMs: 200 },
      onListening: (p) => {
        port = p;
      },
    });
    await eventually(() => port, 5_000, 'the port');
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(503);
    app = await starting;
    expect(socket.connected).toBe(true);
    expect(slack.callsTo('apps.connections.open')).toHaveLength(3);
    expect(app.logs().match(/"variable":"SLACK_APP_TOKEN"/g)).toHaveLength(2);
    expect((await fetch(`${app.url}/healthz`)).status).toBe(200);
  });

  it('a refused app token stops the start, naming SLACK_APP_TOKEN, never its value', async () => {
    const error = await startTestApp(slack, sim.url, {
      env: { ...socketEnv(), SLACK_APP_TOKEN: 'xapp-wrong-SECRETVALUE' },
      slackRetry: { initialMs: 50, maxMs: 100 },
    }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.message).toBe('SLACK_APP_TOKEN: Slack refused this token (invalid_auth)');
  });

  it('/agent starts a job, acknowledged in time, with the prompt as typed', async () => {
    await boot();
    await startedJob('Fix the <Note> callout & link');
    expect(sim.requests.find((r) => r.method === 'POST')?.body).toEqual({ prompt: 'Fix the <Note> callout & link' });
  });

  it('a thread reply is one follow-up, even when Slack redelivers it in a new envelope', async () => {
    await boot();
    const rootTs = await startedJob('Document webhooks');
    const reply = threadReply(rootTs, { text: 'Also the retry policy' });
    ackedInTime(await socket.event(reply));
    ackedInTime(await socket.event(reply, 1));
    const followUps = () => sim.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/message'));
    await eventually(() => followUps().length, 5_000, 'the follow-up');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(followUps()).toHaveLength(1);
    expect(followUps()[0]?.body).toEqual({ prompt: 'Also the retry policy' });
    expect(new Set(socket.envelopes.map((e) => e.envelope_id)).size).toBe(socket.envelopes.length);
  });

  it('/visitors answers, and a click on its report is acknowledged and answered', async () => {
    await boot();
    ackedInTime(
      await socket.slashCommand(
        slashCommand({ command: '/visitors', text: '7d', response_url: slack.responseUrl('v') }),
      ),
    );
    const report = await eventually(() => slack.callsTo('response_url:v')[0], 5_000, 'the report');
    const buttons = buttonsIn(report.args.blocks);
    expect(buttons.length).toBeGreaterThan(0);
    const share = buttons.find((b) => b.button.action_id === 'visitors.share') ?? buttons[0];
    if (!share) throw new Error('no button in the report');
    ackedInTime(
      await socket.interaction(
        buttonClick(share.button, { blockId: share.blockId, ephemeral: true, responseUrl: slack.responseUrl('click') }),
      ),
    );
    await eventually(
      () => slack.callsTo('chat.postMessage').length + slack.callsTo('response_url:click').length,
      5_000,
      'the click answered',
    );
  });

  it('reconnects after the connection drops, and serves again', async () => {
    await boot();
    socket.drop();
    await eventually(() => !socket.connected, 2_000, 'the drop');
    await eventually(async () => (await fetch(`${app?.url}/healthz`)).status === 503, 2_000, '/healthz 503 meanwhile');
    await eventually(() => socket.connected && socket.connectionCount === 2, 15_000, 'the reconnection');
    await eventually(async () => (await fetch(`${app?.url}/healthz`)).status === 200, 5_000, '/healthz 200 again');
    await startedJob('After the reconnect');
  }, 30_000);
});
