import { App, type Receiver } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../../src/metrics.js';
import { observeRequests } from '../../../src/slack/instrumentation.js';
import { captureLogs } from '../../support/logs.js';

/** A Bolt app built as the transport builds it (extendedErrorHandler), on a receiver that receives nothing. */
function observedApp() {
  const receiver: Receiver = { init: () => {}, start: async () => undefined, stop: async () => undefined };
  // With the bot's ids given, Bolt authorizes without calling auth.test: nothing leaves the process.
  const bolt = new App({
    token: 'xoxb-test',
    botId: 'B1',
    botUserId: 'UBOT',
    receiver,
    tokenVerificationEnabled: false,
    extendedErrorHandler: true,
  });
  const captured = captureLogs();
  const metrics = createMetrics();
  observeRequests(bolt, captured.log, metrics);
  bolt.command('/ok', async ({ ack }) => ack());
  bolt.command('/boom', async ({ ack }) => {
    await ack();
    throw Object.assign(new Error('the listener broke'), { code: 'E_TEST' });
  });
  bolt.command('/silent', async () => {});
  /** Slack sends a command; resolves once Bolt is done with it. */
  const send = (command: string) =>
    bolt.processEvent({
      body: { command, text: '', team_id: 'T1', user_id: 'U1', channel_id: 'C1', token: 'x', trigger_id: '1.2' },
      ack: async () => {},
    });
  const outcomes = () =>
    captured.lines.map((line) => JSON.parse(line)).filter((line) => line.event === 'slack.request');
  return { send, captured, metrics, outcomes };
}

describe('observeRequests', () => {
  it('counts each request once as ok, error or not_acked, the error by the request that raised it', async () => {
    const app = observedApp();
    // Concurrently, so a failure can only be told apart by its own request.
    await Promise.all([app.send('/ok'), app.send('/boom'), app.send('/silent'), app.send('/ok')]);
    const seen = app.outcomes().map((line) => `${line.kind} ${line.outcome}`);
    expect(seen.sort()).toEqual(['/boom error', '/ok ok', '/ok ok', '/silent not_acked']);
    const listenerErrors = app.captured.lines.filter((line) => line.includes('slack.listener_error'));
    expect(listenerErrors).toHaveLength(1);
    expect(listenerErrors[0]).toContain('E_TEST');
    expect(listenerErrors[0]).toContain('"kind":"/boom"');
    const text = await app.metrics.registry.metrics();
    expect(text).toContain('mintlify_slack_slack_listener_errors_total{kind="/boom"} 1');
    expect(text).toContain('mintlify_slack_slack_requests_total{kind="/boom",outcome="error"} 1');
    expect(text).toContain('mintlify_slack_slack_requests_total{kind="/ok",outcome="ok"} 2');
  });
});
