import { App, type Receiver } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { createRouter } from '../../../src/slack/router.js';

/** A Bolt app on a receiver that receives nothing, with a router on it; `errors`: what Bolt's error handler saw. */
function boltApp() {
  const receiver: Receiver = { init: () => {}, start: async () => undefined, stop: async () => undefined };
  // With the bot's ids given, Bolt authorizes without calling auth.test: nothing leaves the process.
  const app = new App({
    token: 'xoxb-test',
    botId: 'B1',
    botUserId: 'UBOT',
    receiver,
    tokenVerificationEnabled: false,
  });
  const errors: { code?: string; message: string }[] = [];
  app.error(async (error) => void errors.push(error));
  return { app, errors, doors: createRouter(app) };
}

/** One door of each kind the app has mounted, each noting in `ran` that it ran; `send`: a request into Bolt. */
function routed() {
  const { app, errors, doors } = boltApp();
  const ran: string[] = [];
  const door = (name: string) => async () => void ran.push(name);
  doors.command('/agent', door('agent'));
  doors.command('/visitors', door('visitors'));
  doors.event('app_home_opened', door('messages tab'));
  doors.event('app_home_opened', door('home'));
  doors.event('message', door('message'));
  doors.action('agent.feedback', door('feedback'));
  doors.action('insights.next', door('next'));
  doors.action(/^visitors\./, door('report button'));
  doors.view({ callback_id: 'agent.feedback_modal', type: 'view_submission' }, door('feedback form'));
  doors.shortcut({ callback_id: 'agent_from_message', type: 'message_action' }, door('shortcut'));
  doors.mount();
  const send = (body: Record<string, unknown>) =>
    app.processEvent({ body: { team_id: 'T1', ...body }, ack: async () => {} });
  /** Bolt's listener chains: it runs each one for every request. */
  const chains = () => (app as unknown as { listeners: unknown[] }).listeners.length;
  return { doors, ran, errors, send, chains };
}

const command = (name: string) => ({
  command: name,
  text: 'hi',
  user_id: 'U1',
  channel_id: 'C1',
  token: 'x',
  trigger_id: '1',
});
const event = (type: string) => ({
  type: 'event_callback',
  event_id: 'Ev1',
  event: { type, user: 'U1', channel: 'C1' },
});
const click = (actionId: string) => ({
  type: 'block_actions',
  user: { id: 'U1' },
  actions: [{ type: 'button', action_id: actionId, block_id: 'b', action_ts: '1' }],
});
const form = (callbackId: string, type = 'view_submission') => ({
  type,
  user: { id: 'U1' },
  view: { callback_id: callbackId },
});

describe('the doors router', () => {
  it('gives Bolt one listener per surface, however many doors, so a request runs five chains and not one per door', () => {
    expect(routed().chains()).toBe(5);
  });

  it('runs the door of each command, event, click, form and shortcut, and nothing for one without a door', async () => {
    const { ran, send } = routed();
    await send(command('/visitors'));
    await send(command('/agent'));
    await send(command('/insights'));
    await send(event('message'));
    await send(event('link_shared'));
    await send(click('insights.next'));
    await send(click('insights.csv'));
    await send(click('visitors.share'));
    await send(click('visitors.from_an_older_release'));
    await send(click('old.visitors.share'));
    await send(form('agent.feedback_modal'));
    await send(form('agent.feedback_modal', 'view_closed'));
    await send({
      type: 'message_action',
      callback_id: 'agent_from_message',
      user: { id: 'U1' },
      channel: { id: 'C1' },
    });
    expect(ran).toEqual([
      'visitors',
      'agent',
      'message',
      'next',
      'report button',
      'report button',
      'feedback form',
      'shortcut',
    ]);
  });

  it('matches a name whole, its dots as dots', async () => {
    const { ran, send } = routed();
    await send(command('/agentx'));
    await send(click('agentxfeedback'));
    await send(event('app_home_opened_too'));
    expect(ran).toEqual([]);
  });

  it('runs every door of one event', async () => {
    const { ran, errors, send } = routed();
    await send(event('app_home_opened'));
    expect(ran).toEqual(['messages tab', 'home']);
    expect(errors).toEqual([]);
  });

  it('refuses a door it could not find again: a pattern with flags, a view of another type, two listeners', () => {
    const { doors } = routed();
    expect(() => doors.command(/^\/a/i, async () => {})).toThrow(
      'Each command door takes one listener and a name or a pattern, not /^\\/a/i',
    );
    expect(() => doors.view({ callback_id: 'x', type: 'view_closed' }, async () => {})).toThrow('Each view door');
    expect(() =>
      doors.action(
        'a',
        async ({ next }) => next(),
        async () => {},
      ),
    ).toThrow('Each action door');
  });
});

describe('several doors on one event', () => {
  it('fail as Bolt’s listeners do: one failure as it is, more as one MultipleListenerError', async () => {
    const { app, errors, doors } = boltApp();
    const broke = (why: string) => async () => {
      throw new Error(why);
    };
    doors.event('app_home_opened', broke('first'));
    doors.event('app_home_opened', async () => {});
    doors.event('app_mention', broke('one'));
    doors.event('app_mention', broke('two'));
    doors.mount();
    const send = (type: string) =>
      app.processEvent({ body: { team_id: 'T1', ...event(type) }, ack: async () => {} }).catch(() => {});
    await send('app_home_opened');
    await send('app_mention');
    expect(errors.map((e) => [e.code, e.message.split('\n')[0]])).toEqual([
      ['slack_bolt_unknown_error', 'first'],
      [
        'slack_bolt_multiple_listener_error',
        'Multiple errors occurred while handling several listeners. The `originals` property contains an array of each error.',
      ],
    ]);
  });
});
