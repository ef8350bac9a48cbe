import { describe, expect, it } from 'vitest';
import { assistantPane, paneMessage } from '../../../../src/agent/doors/assistant.js';
import { paneCopy } from '../../../../src/agent/messages.js';
import type { AccessRule } from '../../../../src/slack/access.js';
import { keys } from '../../../../src/store/keys.js';
import { reportBeside } from '../../../../src/visitors/doors/report-beside.js';
import { type EventEnvelope, say } from '../../../fakes/fake-slack-api.js';
import { CHANNEL_ID, USER_ID } from '../../../fixtures/slack.js';
import { contextFor, storeDown, useAgentUnit } from '../support.js';

const OPEN: AccessRule = { allowedUsers: [], allowedChannels: [] };
const GENERAL = 'C234GENERAL';

describe('the assistant pane door (Bolt’s Assistant on fixture payloads)', () => {
  const unit = useAgentUnit({ MINTLIFY_CHANNEL_PROJECTS: `${CHANNEL_ID}:proj_b` });

  /** Runs Bolt's `Assistant` middleware on one event, as the app does; true when it let the event go on. */
  async function deliver(events: EventEnvelope[], rule = OPEN): Promise<boolean> {
    let passedOn = false;
    const middleware = assistantPane(unit().deps, reportBeside).getMiddleware();
    for (const body of events) {
      const context = await contextFor(rule, body);
      const next = async () => {
        passedOn = true;
      };
      const { slack, log } = unit().deps;
      await middleware({
        body,
        payload: body.event,
        event: body.event,
        context,
        client: slack,
        logger: log,
        next,
      } as never);
    }
    return passedOn;
  }

  function opens(channel?: string) {
    const opened = unit().slack.people.opensAssistant(USER_ID, channel ? { context: channel } : {});
    return { ...opened, says: (typed: string) => say(unit().slack, USER_ID, opened.channel, typed, opened).events };
  }

  /** Opens the pane (next to `channel`, if given) and says `typed` in its thread. */
  async function saysInPane(typed: string, channel?: string) {
    const pane = opens(channel);
    await deliver(pane.events);
    await deliver(pane.says(typed));
    return pane;
  }

  it('a thread started: the suggested prompts offered, where the person is kept in the store, nothing handed on', async () => {
    const pane = opens(CHANNEL_ID);
    expect(await deliver(pane.events)).toBe(false);
    expect(pane.thread.suggestedPrompts).toEqual({ title: paneCopy.promptsTitle, prompts: paneCopy.prompts });
    const saved = await unit().deps.store.kv.get(keys.paneContext(pane.channel, pane.threadTs));
    expect(saved).toMatchObject({ channel_id: CHANNEL_ID, team_id: 'T1' });
    expect(unit().handed).toEqual([]);
  });

  it('a message in the pane’s thread: addressed, decoded, handed on with the channel next to the pane', async () => {
    const pane = await saysInPane('Document <retries> & @bob', CHANNEL_ID);
    expect(unit().handed).toEqual([
      {
        kind: 'agent.pane',
        data: {
          turn: expect.objectContaining({
            channel: pane.channel,
            threadTs: pane.threadTs,
            text: 'Document <retries> & @Bob Lee',
            addressed: true,
            allowed: true,
          }),
          contextChannel: CHANNEL_ID,
        },
      },
    ]);
  });

  it('moving with the pane open changes the channel the next message is routed by', async () => {
    const pane = opens(CHANNEL_ID);
    await deliver(pane.events);
    await deliver(unit().slack.people.movesAssistant(pane.thread, GENERAL));
    await deliver(pane.says('Fix the quickstart'));
    expect(unit().handed[0]?.data).toMatchObject({ contextChannel: GENERAL });
  });

  it('opened away from any channel: still the pane’s thread, routed as a DM (no context channel)', async () => {
    await saysInPane('Fix the quickstart');
    expect(unit().handed).toEqual([{ kind: 'agent.pane', data: { turn: expect.any(Object) } }]);
  });

  it('`visitors …` is the /visitors report of the project next to the pane, answered in its thread', async () => {
    const pane = await saysInPane('visitors 30d', CHANNEL_ID);
    expect(unit().handed).toEqual([
      {
        kind: 'visitors.report',
        data: expect.objectContaining({
          project: 'proj_b',
          audience: { userId: USER_ID, channel: pane.channel, threadTs: pane.threadTs },
        }),
      },
    ]);
  });

  it('a DM thread that is not the pane’s stays the DM door’s: agent.turn, as before', async () => {
    const dm = say(unit().slack, USER_ID, 'DALICE', 'Document the CLI');
    expect(await deliver(dm.events)).toBe(true); // a top-level DM is not Bolt's Assistant's: it goes on
    const reply = say(unit().slack, USER_ID, 'DALICE', 'Include --verbose', { threadTs: dm.ts });
    expect(await deliver(reply.events)).toBe(false);
    expect(unit().handed).toEqual([
      { kind: 'agent.turn', data: expect.objectContaining({ threadTs: dm.ts, text: 'Include --verbose' }) },
    ]);
  });

  it('hands on nothing for the bot’s own messages or edits in the pane’s thread', async () => {
    const pane = opens(CHANNEL_ID);
    await deliver(pane.events);
    const event = { type: 'message', channel: pane.channel, channel_type: 'im', thread_ts: pane.threadTs };
    const own = { ...pane.says('x')[0], event: { ...event, user: 'UBOT', ts: '9.1', text: 'On it' } } as EventEnvelope;
    const bot = { ...own, event: { ...event, bot_id: 'B9', user: 'U9', ts: '9.2', text: 'x' } } as EventEnvelope;
    await deliver([own, bot]);
    expect(unit().handed).toEqual([]);
  });

  it('without the store a DM thread cannot be told from the pane’s: it is answered as a DM, and the log says why', async () => {
    const [body] = say(unit().slack, USER_ID, 'DALICE', 'Include --verbose', { threadTs: '1700000000.000100' }).events;
    if (!body) throw new Error('no event');
    const args = { event: body.event, body, context: await contextFor(OPEN, body) };
    await paneMessage({ ...unit().deps, store: storeDown() }, args as never, reportBeside);
    expect(unit().handed).toEqual([
      { kind: 'agent.turn', data: expect.objectContaining({ text: 'Include --verbose', addressed: true }) },
    ]);
    expect(unit().logs.text()).toContain('"event":"store.degraded"');
  });
});
