import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/server.js';
import { type Envelope, type SocketModeStandin, startSocketModeStandin } from '../../src/slack-standin/index.js';
import { type FakeSlackApi, say, startFakeSlackApi } from '../fakes/fake-slack-api.js';
import { homeOpened, messageShortcut, viewSubmission } from '../fixtures/conversation.js';
import { CHANNEL_ID, USER_ID } from '../fixtures/slack.js';
import { dropNamespace, storeKinds, testNamespace } from '../support/redis.js';
import { eventually, startTestApp, TEST_PROJECT_ID, type TestApp } from '../support/test-app.js';

/** Slack shows an error when an envelope is not acknowledged within 3 s, and a trigger_id lasts as long. */
const SLACK_WINDOW_MS = 3_000;
const BOB = 'U456BOB';

const ackedInTime = (envelope: Envelope) => {
  expect((envelope.ackedAt ?? Number.POSITIVE_INFINITY) - envelope.sentAt).toBeLessThan(SLACK_WINDOW_MS);
  return envelope;
};

/** The conversational doors in Socket Mode (the manifest's default), against the stand-in's Socket Mode server. */
describe.each(storeKinds)('conversations over Socket Mode ($kind store)', ({ kind, redisUrl, available }) => {
  let slack: FakeSlackApi;
  let socket: SocketModeStandin;
  let sim: Simulator;
  let app: TestApp | undefined;
  let namespace: string;

  beforeEach(async (context) => {
    if (!available) context.skip();
    namespace = testNamespace();
    slack = await startFakeSlackApi();
    socket = await startSocketModeStandin(slack);
    sim = await startSimulator({ jobDurationMs: 60_000 });
    app = await startTestApp(slack, sim.url, {
      redisUrl,
      namespace,
      env: { SLACK_APP_TOKEN: slack.workspace.appToken, SLACK_SIGNING_SECRET: '' },
    });
    await eventually(() => socket.connected, 5_000, 'the Socket Mode connection');
  });

  afterEach(async () => {
    await app?.stop();
    app = undefined;
    await socket?.close();
    await sim?.close();
    await slack?.close();
    if (kind === 'redis' && available) await dropNamespace(namespace);
  });

  const creates = () => sim.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/job'));
  const followUps = () => sim.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/message'));
  const settle = () => new Promise((r) => setTimeout(r, 400));
  const jobOf = (threadTs: string) =>
    eventually(() => app?.app.deps.store.jobs.forThread([TEST_PROJECT_ID], CHANNEL_ID, threadTs), 5_000, 'binding');

  async function deliver(events: Record<string, unknown>[], retryAttempt = 0) {
    for (const event of events) ackedInTime(await socket.event(event, retryAttempt));
  }

  it('a mention starts one job in its thread; both events and their redeliveries are acked in time', async () => {
    const mention = say(slack, USER_ID, CHANNEL_ID, '@Mintlify document the <Steps> component & its props');
    await deliver(mention.events);
    await jobOf(mention.ts);
    await deliver(mention.events, 1);
    await settle();
    expect(creates().map((r) => r.body)).toEqual([{ prompt: 'document the <Steps> component & its props' }]);
  });

  it('a mention in a job’s thread is one follow-up, with both events delivered and redelivered', async () => {
    const start = say(slack, USER_ID, CHANNEL_ID, '@Mintlify document webhooks');
    await deliver(start.events);
    await jobOf(start.ts);
    const more = say(slack, BOB, CHANNEL_ID, '@Mintlify also the retry headers', { threadTs: start.ts });
    await deliver(more.events);
    await eventually(() => followUps().length, 5_000, 'the follow-up');
    await deliver(more.events, 1);
    await settle();
    expect(followUps().map((r) => r.body)).toEqual([{ prompt: 'also the retry headers' }]);
    expect(creates()).toHaveLength(1);
  });

  it('the shortcut opens its modal within 3 s of the trigger, and its submission starts the job', async () => {
    const message = say(slack, BOB, CHANNEL_ID, 'The SDK page is outdated');
    const shortcut = ackedInTime(
      await socket.interaction(messageShortcut({ ts: message.ts, text: message.text, user: BOB })),
    );
    const opened = await eventually(() => slack.callsTo('views.open')[0], 5_000, 'views.open');
    expect(opened.at - shortcut.sentAt).toBeLessThan(SLACK_WINDOW_MS);
    const view = opened.args.view as Record<string, unknown>;
    const empty = ackedInTime(await socket.interaction(viewSubmission(view, '')));
    expect(empty.ackPayload).toMatchObject({ response_action: 'errors', errors: { instruction: expect.any(String) } });
    ackedInTime(await socket.interaction(viewSubmission(view, 'Update the SDK page')));
    await jobOf(message.ts);
    expect(creates()[0]?.body).toEqual({ prompt: expect.stringMatching(/^Update the SDK page\n\nSlack message/) });
  });

  it('a DM starts a job and App Home lists it for its owner only', async () => {
    const dm = say(slack, USER_ID, 'D123ALICE', 'Document the CLI');
    await deliver(dm.events);
    await eventually(() => app?.app.deps.store.jobs.forThread([TEST_PROJECT_ID], 'D123ALICE', dm.ts));
    await deliver([homeOpened(USER_ID, 'home'), homeOpened(BOB, 'home')]);
    const home = (user: string) =>
      JSON.stringify(slack.callsTo('views.publish').find((c) => c.args.user_id === user)?.args.view ?? '');
    await eventually(() => home(USER_ID).includes('Document the CLI') && home(BOB).includes('not started a job'));
    expect(home(BOB)).not.toContain('Document the CLI');
  });
});
