import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/server.js';
import { TokenRefusedError } from '../../src/slack/token-check.js';
import { type FakeSlackApi, startFakeSlackApi } from '../fakes/fake-slack-api.js';
import { postForm } from '../fakes/signed-request.js';
import { slashCommand } from '../fixtures/slack.js';
import { runEntryPoint } from '../support/app-process.js';
import { eventually, startTestApp, type TestApp, testEnv } from '../support/test-app.js';

const WRONG_TOKEN = 'xoxb-wrong-SECRETVALUE-123';
const FAST_RETRY = { initialMs: 50, maxMs: 200 };

/** Ready means Slack accepted the token: through the real app over signed HTTP, and the real process. */
describe('start-up token check', () => {
  let slack: FakeSlackApi;
  let sim: Simulator;
  let app: TestApp | undefined;

  beforeEach(async () => {
    slack = await startFakeSlackApi();
    sim = await startSimulator();
  });
  afterEach(async () => {
    await app?.stop();
    app = undefined;
    await sim.close();
    await slack.close();
  });

  it.each(['invalid_auth', 'not_authed', 'account_inactive', 'token_revoked'])(
    'a bot token Slack refuses (%s) stops the start with the variable and the reason, never the value',
    async (code) => {
      if (code !== 'invalid_auth') {
        slack.acceptToken(WRONG_TOKEN);
        slack.refuseToken(WRONG_TOKEN, code);
      }
      const started = startTestApp(slack, sim.url, { env: { SLACK_BOT_TOKEN: WRONG_TOKEN }, slackRetry: FAST_RETRY });
      const error = await started.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(TokenRefusedError);
      expect((error as Error).message).toBe(`SLACK_BOT_TOKEN: Slack refused this token (${code})`);
      expect(slack.callsTo('auth.test')).toHaveLength(1); // refused for good: not tried again
    },
  );

  it('while Slack is unreachable: /healthz 503 and a log line per try, commands wait; ready once Slack answers', async () => {
    slack.fail('auth.test', { status: 503 }, 3);
    let port = 0;
    const starting = startTestApp(slack, sim.url, {
      slackRetry: FAST_RETRY,
      onListening: (p) => {
        port = p;
      },
    });
    await eventually(() => port, 5_000, 'the port');
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(503);
    app = await starting;
    expect(slack.callsTo('auth.test')).toHaveLength(4);
    expect(app.logs().match(/"event":"slack\.not_ready"/g)).toHaveLength(3);
    expect(app.logs()).toContain('"variable":"SLACK_BOT_TOKEN"');
    expect((await fetch(`${app.url}/healthz`)).status).toBe(200);
    const res = await postForm(app.url, slashCommand({ text: 'Ready now', response_url: slack.responseUrl() }));
    expect(res.status).toBe(200);
    await eventually(() => slack.callsTo('chat.postMessage')[0], 5_000, 'the root message');
  });

  it('the real process exits non-zero on a refused bot token, naming SLACK_BOT_TOKEN, never its value', async () => {
    const exit = await runEntryPoint(testEnv(slack, sim.url, { SLACK_BOT_TOKEN: WRONG_TOKEN, LOG_LEVEL: 'info' }));
    expect(exit.code).not.toBe(0);
    expect(exit.code).not.toBeNull();
    expect(exit.stderr).toContain('SLACK_BOT_TOKEN: Slack refused this token (invalid_auth)');
    expect(exit.stdout).not.toContain('"event":"app.started"');
    expect(exit.stdout + exit.stderr).not.toContain('SECRETVALUE');
  });
});
