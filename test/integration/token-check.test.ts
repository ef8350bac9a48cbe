import { describe, expect, it } from 'vitest';
import { TokenRefusedError } from '../../src/slack/token-check.js';
import { runEntryPoint } from '../support/app-process.js';
import { useHarness } from '../support/harness.js';
import { eventually } from '../support/test-app.js';

const WRONG_TOKEN = 'xoxb-wrong-SECRETVALUE-123';
const FAST_RETRY = { initialMs: 50, maxMs: 200 };

/** Ready means Slack accepted the token: through the real app over signed HTTP, and the real process. */
describe('start-up token check', () => {
  const h = useHarness({ start: { slackRetry: FAST_RETRY } });

  it.each(['invalid_auth', 'not_authed', 'account_inactive', 'token_revoked'])(
    'a bot token Slack refuses (%s) stops the start with the variable and the reason, never the value',
    async (code) => {
      if (code !== 'invalid_auth') {
        h.slack.acceptToken(WRONG_TOKEN);
        h.slack.refuseToken(WRONG_TOKEN, code);
      }
      const started = h.boot({ env: { SLACK_BOT_TOKEN: WRONG_TOKEN } });
      const error = await started.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(TokenRefusedError);
      expect((error as Error).message).toBe(`SLACK_BOT_TOKEN: Slack refused this token (${code})`);
      expect(h.slack.callsTo('auth.test')).toHaveLength(1); // refused for good: not tried again
    },
  );

  it('while Slack is unreachable: /healthz 503 and a log line per try, commands wait; ready once Slack answers', async () => {
    h.slack.fail('auth.test', { status: 503 }, 3);
    let port = 0;
    const starting = h.boot({
      onListening: (p) => {
        port = p;
      },
    });
    await eventually(() => port, 5_000, 'the port');
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(503);
    const app = await starting;
    // Three refused tries, Bolt's check, then the app's own identity (whose removals it believes, removal.ts).
    expect(h.slack.callsTo('auth.test')).toHaveLength(5);
    expect(app.logs().match(/"event":"slack\.not_ready"/g)).toHaveLength(3);
    expect(app.logs()).toContain('"variable":"SLACK_BOT_TOKEN"');
    expect((await fetch(`${app.url}/healthz`)).status).toBe(200);
    const { status } = await h.command('/agent Ready now');
    expect(status).toBe(200);
    await eventually(() => h.slack.callsTo('chat.postMessage')[0], 5_000, 'the root message');
  });

  it('the real process exits non-zero on a refused bot token, naming SLACK_BOT_TOKEN, never its value', {
    timeout: 60_000,
  }, async () => {
    const exit = await runEntryPoint(h.appEnv({ SLACK_BOT_TOKEN: WRONG_TOKEN }));
    expect(exit.code).not.toBe(0);
    expect(exit.code).not.toBeNull();
    expect(exit.stderr).toContain('SLACK_BOT_TOKEN: Slack refused this token (invalid_auth)');
    expect(exit.stdout).not.toContain('"event":"app.started"');
    expect(exit.stdout + exit.stderr).not.toContain('SECRETVALUE');
  });
});
