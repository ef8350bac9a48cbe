import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../../src/metrics.js';
import { endsAtAck } from '../../../src/slack/after-ack.js';
import { captureLogs } from '../../support/logs.js';

/** A listener's arguments: an ack that records what it sent, and the command it came with. */
function args() {
  const sent: unknown[] = [];
  const command = { command: '/agent', text: 'hi' };
  return { sent, args: { ack: async (response?: unknown) => void sent.push(response), command, body: command } };
}

/** What endsAtAck logs and counts to. */
function observed(logs = captureLogs()) {
  return { log: logs.log, metrics: createMetrics() };
}

/** A promise and what settles it, for work that waits until the test lets it go. */
function gate() {
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

describe('endsAtAck', () => {
  it('ends the request at the ack while the listener goes on with what it read', async () => {
    const { sent, args: given } = args();
    const later = gate();
    const done: string[] = [];
    const listener = endsAtAck(observed(), async ({ ack, command }: typeof given) => {
      await ack({ text: 'on it' } as never);
      await later.opened;
      done.push(command.text);
    });
    await listener(given);
    expect(sent).toEqual([{ text: 'on it' }]);
    expect(done).toEqual([]);
    later.open();
    await expect.poll(() => done).toEqual(['hi']);
  });

  it('leaves a failure before the ack to Bolt, and logs and counts one after it with the door', async () => {
    const before = captureLogs();
    const failing = endsAtAck(observed(before), async () => {
      throw new Error('no ack');
    });
    await expect(failing(args().args)).rejects.toThrow('no ack');
    expect(before.text()).toBe('');

    const after = captureLogs();
    const counted = observed(after);
    const late = endsAtAck(counted, async ({ ack }: ReturnType<typeof args>['args']) => {
      await ack();
      throw new Error('after the ack');
    });
    await late(args().args);
    await expect.poll(() => after.text()).toContain('"event":"slack.listener_error"');
    expect(after.text()).toContain('"kind":"/agent"');
    expect(after.text()).toContain('after the ack');
    expect(await counted.metrics.render()).toContain('mintlify_slack_slack_listener_errors_total{kind="/agent"} 1');
  });

  it('ends an event’s request as its listener starts (Bolt acked it already), and logs and counts its failure', async () => {
    const logs = captureLogs();
    const counted = observed(logs);
    const later = gate();
    const done: string[] = [];
    const listener = endsAtAck(
      counted,
      async ({ event }: { event: { text: string }; body: object; ack?: undefined }) => {
        await later.opened;
        done.push(event.text);
        throw new Error('after the event');
      },
    );
    const event = { type: 'message', text: 'a reply' };
    await listener({ event, body: { type: 'event_callback', event } });
    expect(done).toEqual([]);
    later.open();
    await expect.poll(() => logs.text()).toContain('after the event');
    expect(done).toEqual(['a reply']);
    expect(await counted.metrics.render()).toContain('slack_listener_errors_total{kind="event:message"} 1');
  });

  it('ends when a listener returns without acking (Bolt then answers the unacked request)', async () => {
    const { sent, args: given } = args();
    await endsAtAck(observed(), async () => {})(given);
    expect(sent).toEqual([]);
  });
});
