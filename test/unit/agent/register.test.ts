import { describe, expect, it } from 'vitest';
import { registerAgent } from '../../../src/agent/register.js';
import type { AccessRule } from '../../../src/slack/access.js';
import { reportBeside } from '../../../src/visitors/doors/report-beside.js';
import { say } from '../../fakes/fake-slack-api.js';
import { CHANNEL_ID, slashCommand } from '../../fixtures/slack.js';
import { contextFor, recordingAck, recordingApp, useAgentUnit } from './support.js';

const OPEN: AccessRule = { allowedUsers: [], allowedChannels: [] };

describe('registerAgent', () => {
  const unit = useAgentUnit();

  /** The agent's listeners, registered on an app that records them. */
  function registered() {
    const recorded = recordingApp();
    registerAgent(recorded.app, unit().deps, reportBeside);
    return recorded;
  }

  it('opens one door per surface: the pane, /agent, mentions, messages (DMs and thread replies), the Messages tab, Stop, the shortcut and its form, the feedback buttons and their form', () => {
    expect(registered().registered.map((r) => r.on)).toEqual([
      'assistant',
      'command /agent',
      'event app_mention',
      'event message',
      'event app_home_opened',
      'event app_context_changed',
      'event agent_session_stopped',
      'shortcut {"callback_id":"agent_from_message","type":"message_action"}',
      'view {"callback_id":"agent_from_message","type":"view_submission"}',
      'action agent.feedback',
      'view {"callback_id":"agent.feedback_modal","type":"view_submission"}',
      'action agent.open_pr',
    ]);
  });

  it('hands /agent on through its door', async () => {
    const { listenersOf } = registered();
    const command = slashCommand({ text: 'Fix the links' });
    const [listener] = listenersOf('command /agent');
    await listener?.({ command, ack: recordingAck().ack, context: await contextFor(OPEN, command) });
    // The request ends at the ack (after-ack.ts); the instruction is handed on after it.
    await expect
      .poll(() => unit().handed)
      .toEqual([{ kind: 'agent.start', data: expect.objectContaining({ prompt: 'Fix the links' }) }]);
  });

  it('hands `/agent stop` and Slack’s Stop on as agent.stop, with the access rule’s verdict', async () => {
    const { listenersOf } = registered();
    const command = slashCommand({ text: ' Stop ' });
    const [door] = listenersOf('command /agent');
    await door?.({ command, ack: recordingAck().ack, context: await contextFor(OPEN, command) });
    await expect.poll(() => unit().handed.length).toBe(1);
    const body = {
      type: 'event_callback',
      team_id: 'T1',
      event: { type: 'agent_session_stopped', channel: CHANNEL_ID, user: 'U456BOB', thread_ts: '1700000000.000100' },
    };
    const onlyAlice: AccessRule = { allowedUsers: ['U123ALICE'], allowedChannels: [] };
    const [stopped] = listenersOf('event agent_session_stopped');
    await stopped?.({ event: body.event, body, context: await contextFor(onlyAlice, body) });
    expect(unit().handed).toEqual([
      { kind: 'agent.stop', data: expect.objectContaining({ channel: CHANNEL_ID, allowed: true }) },
      {
        kind: 'agent.stop',
        data: { userId: 'U456BOB', channel: CHANNEL_ID, threadTs: '1700000000.000100', allowed: false },
      },
    ]);
    expect(unit().handed[0]?.data).not.toHaveProperty('threadTs');
  });

  it('hands a thread reply and a direct message on once each, through the one message listener', async () => {
    const { listenersOf } = registered();
    const [reply] = say(unit().slack, 'U123ALICE', CHANNEL_ID, 'Also the table', {
      threadTs: '1700000000.000100',
    }).events;
    const [direct] = say(unit().slack, 'U123ALICE', 'DALICE', 'Fix the footer').events;
    for (const [i, body] of [reply, direct].entries()) {
      const args = { event: body?.event, body, context: await contextFor(OPEN, body ?? {}) };
      for (const listener of listenersOf('event message')) await listener(args);
      // An event's request ends as its listener starts (after-ack.ts); its turn is handed on after it.
      await expect.poll(() => unit().handed.length).toBe(i + 1);
    }
    expect(unit().handed).toEqual([
      { kind: 'agent.turn', data: expect.objectContaining({ text: 'Also the table', addressed: false }) },
      { kind: 'agent.turn', data: expect.objectContaining({ text: 'Fix the footer', addressed: true }) },
    ]);
  });

  it('acknowledges a click on the pull request’s link button and does nothing else', async () => {
    const { listenersOf } = registered();
    const { ack, calls } = recordingAck();
    for (const listener of listenersOf('action agent.open_pr')) await listener({ ack });
    expect(calls).toEqual([undefined]);
    expect(unit().handed).toEqual([]);
    expect(unit().slack.calls).toEqual([]);
  });
});
