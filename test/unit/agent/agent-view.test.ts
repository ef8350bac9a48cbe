import { readFileSync } from 'node:fs';
import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { keepViewing, viewingFor, viewingOf } from '../../../src/agent/agent-view.js';
import { contextChanged, messagesTabOpened } from '../../../src/agent/doors/agent-view.js';
import { message } from '../../../src/agent/doors/conversation.js';
import { paneCopy } from '../../../src/agent/messages.js';
import { reportBeside } from '../../../src/visitors/doors/report-beside.js';
import { USER_ID } from '../../fixtures/slack.js';
import { contextFor, storeDown, useAgentUnit } from './support.js';

type MessageArgs = SlackEventMiddlewareArgs<'message'> & AllMiddlewareArgs;
const DM = `D${USER_ID}`;
const channelEntity = (value: string) => ({ type: 'slack#/types/channel_id', value, team_id: 'T1' });

describe('what a person looks at (agent_view)', () => {
  it('is the channel of the most relevant entity naming one: a channel, or the channel of a message read', () => {
    expect(viewingOf({ entities: [channelEntity('C1'), channelEntity('C2')] })).toEqual({ channel: 'C1' });
    const read = { type: 'slack#/types/message_context', value: { channel_id: 'C3', message_ts: '1.2' } };
    expect(viewingOf({ entities: [{ type: 'slack#/types/canvas_id', value: 'F1' }, read] })).toEqual({ channel: 'C3' });
    expect(viewingOf({ entities: [{ type: 'slack#/types/list_id', value: 'F2' }] })).toEqual({});
    expect(viewingOf({})).toEqual({});
  });

  describe('for a DM message', () => {
    const unit = useAgentUnit();

    it('is its own app_context first, else the one kept, else unknown (a plain DM)', async () => {
      const { deps } = unit();
      expect(await viewingFor(deps, USER_ID, undefined)).toBeUndefined();
      await keepViewing(deps, USER_ID, { entities: [channelEntity('C1')] });
      expect(await viewingFor(deps, USER_ID, undefined)).toEqual({ channel: 'C1' });
      expect(await viewingFor(deps, USER_ID, { entities: [channelEntity('C2')] })).toEqual({ channel: 'C2' });
      // Looking at nothing is still agent_view: no channel, the default project.
      expect(await viewingFor(deps, USER_ID, {})).toEqual({});
      expect(await viewingFor(deps, USER_ID, { entities: 'garbled' })).toEqual({ channel: 'C1' });
    });

    it('goes the pane’s way with a context, as a plain DM without one; without the store, its own context still counts', async () => {
      const send = async (appContext?: unknown, store = unit().deps.store) => {
        const event = {
          type: 'message',
          channel: DM,
          channel_type: 'im',
          user: USER_ID,
          ts: `${Math.random()}`,
          text: 'Fix it',
        };
        const body = {
          event_id: 'Ev1',
          event: { ...event, ...(appContext !== undefined && { app_context: appContext }) },
        };
        const args = {
          event: body.event,
          body,
          context: await contextFor({ allowedUsers: [], allowedChannels: [] }, body),
        };
        await message({ ...unit().deps, store }, args as unknown as MessageArgs, reportBeside);
        return unit().handed.splice(0);
      };
      expect(await send()).toEqual([{ kind: 'agent.turn', data: expect.objectContaining({ channel: DM }) }]);
      expect(await send({ entities: [channelEntity('C9')] })).toEqual([
        { kind: 'agent.pane', data: { turn: expect.objectContaining({ text: 'Fix it' }), contextChannel: 'C9' } },
      ]);
      expect(await send({}, storeDown())).toEqual([{ kind: 'agent.pane', data: { turn: expect.anything() } }]);
      expect(await send(undefined, storeDown())).toEqual([{ kind: 'agent.turn', data: expect.anything() }]);
    });
  });
});

describe('the Messages tab doors', () => {
  const unit = useAgentUnit();
  const opened = (tab: 'home' | 'messages', context?: unknown) =>
    ({
      event: {
        type: 'app_home_opened',
        user: USER_ID,
        channel: DM,
        tab,
        event_ts: '1.0',
        ...(context ? { context } : {}),
      },
    }) as never;

  it('the Messages tab opened: its prompts, without thread_ts, and what the person looks at kept; Home is App Home’s', async () => {
    await messagesTabOpened(unit().deps, opened('home'));
    expect(unit().slack.callsTo('assistant.threads.setSuggestedPrompts')).toEqual([]);
    await messagesTabOpened(unit().deps, opened('messages', { entities: [channelEntity('C1')] }));
    const [call] = unit().slack.callsTo('assistant.threads.setSuggestedPrompts');
    expect(call?.args).toMatchObject({ channel_id: DM, title: paneCopy.promptsTitle, prompts: paneCopy.prompts });
    expect(call?.args.thread_ts).toBeUndefined();
    expect(await viewingFor(unit().deps, USER_ID, undefined)).toEqual({ channel: 'C1' });
  });

  it('app_context_changed is kept; without the store the prompts are still offered', async () => {
    const moved = { type: 'app_context_changed', user: USER_ID, channel: DM, context: {}, event_ts: '2.0' };
    await contextChanged(unit().deps, { event: moved } as never);
    expect(await viewingFor(unit().deps, USER_ID, undefined)).toEqual({});
    await messagesTabOpened({ ...unit().deps, store: storeDown() }, opened('messages', { entities: [] }));
    expect(unit().slack.callsTo('assistant.threads.setSuggestedPrompts')).toHaveLength(1);
  });
});

describe('manifest.yml', () => {
  const manifest = readFileSync(new URL('../../../manifest.yml', import.meta.url), 'utf8');

  it('declares agent_view as Slack allows it (a description of at most 300 characters, at most 4 prompts), the prompts the app sets', () => {
    const features = manifest.slice(manifest.indexOf('features:'), manifest.indexOf('oauth_config:'));
    expect(features).not.toMatch(/^\s+assistant_view:/m);
    const view = features.slice(features.indexOf('  agent_view:'), features.indexOf('  shortcuts:'));
    const description = /^ {4}agent_description: (.+)$/m.exec(view)?.[1] ?? '';
    expect(description.length).toBeGreaterThan(0);
    expect(description.length).toBeLessThanOrEqual(300);
    const titles = [...view.matchAll(/- title: (.+)$/gm)].map((m) => m[1]);
    const messages = [...view.matchAll(/^ +message: (.+)$/gm)].map((m) => m[1]);
    expect(titles.map((title, i) => ({ title, message: messages[i] }))).toEqual(paneCopy.prompts);
    expect(paneCopy.prompts.length).toBeLessThanOrEqual(4);
    expect(manifest).toMatch(/^ +- app_context_changed$/m);
  });

  it('keeps its texts within Slack’s manifest limits (app name 35, description 140, command 32, usage_hint 1,000)', () => {
    const values = (key: string) =>
      [...manifest.matchAll(new RegExp(`^ +(?:- )?${key}: "?(.*?)"?$`, 'gm'))].map((m) => m[1] ?? '');
    const longest = (key: string) => Math.max(...values(key).map((v) => v.length));
    expect(values('usage_hint')).toHaveLength(3);
    expect(longest('usage_hint')).toBeLessThanOrEqual(1000);
    expect(longest('command')).toBeLessThanOrEqual(32);
    expect(longest('name')).toBeLessThanOrEqual(35);
    expect(longest('description')).toBeLessThanOrEqual(140);
    expect(longest('callback_id')).toBeLessThanOrEqual(255);
  });
});
