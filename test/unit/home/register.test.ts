import { describe, expect, it } from 'vitest';
import { tabOpened } from '../../../src/home/publish.js';
import { homeOpened, registerHome } from '../../../src/home/register.js';
import { republishHome } from '../../../src/home/republish.js';
import { homeOpened as homeOpenedEvent } from '../../fixtures/conversation.js';
import { USER_ID } from '../../fixtures/slack.js';
import { boundJob, recordingApp, useAgentUnit } from '../agent/support.js';

describe('the App Home door', () => {
  const unit = useAgentUnit();

  it.each(['home', 'messages'] as const)('hands on who opened the %s tab', async (tab) => {
    const body = homeOpenedEvent(USER_ID, tab);
    await homeOpened(unit().deps, { event: body.event, body } as never);
    expect(unit().handed).toEqual([{ kind: 'home.opened', data: { userId: USER_ID, tab } }]);
  });

  it('hands on an empty tab when Slack names none', async () => {
    const body = homeOpenedEvent(USER_ID, 'home');
    const { tab: _, ...event } = body.event;
    await homeOpened(unit().deps, { event, body } as never);
    expect(unit().handed).toEqual([{ kind: 'home.opened', data: { userId: USER_ID, tab: '' } }]);
  });
});

describe('registerHome', () => {
  const unit = useAgentUnit();

  it('listens for app_home_opened with the door', async () => {
    const { app, registered, listenersOf } = recordingApp();
    registerHome(app, unit().deps);
    expect(registered.map((r) => r.on)).toEqual(['event app_home_opened']);
    const body = homeOpenedEvent(USER_ID, 'home');
    for (const listener of listenersOf('event app_home_opened'))
      await listener({ event: body.event, body, context: { teamId: 'T1' } });
    expect(unit().handed).toEqual([{ kind: 'home.opened', data: { userId: USER_ID, tab: 'home' } }]);
  });
});

describe('a job’s change, in the deps every role builds (the worker too, which registers no door)', () => {
  const unit = useAgentUnit();

  it('republishes its owner’s Home while it is their tab', async () => {
    const { deps, slack } = unit();
    const record = await boundJob(deps);
    await tabOpened(deps, { userId: USER_ID, tab: 'home' });
    await deps.jobWatchers?.changed(record);
    await republishHome(deps, { workspace: deps.workspace, userId: USER_ID });
    expect(slack.views.filter((v) => v.via === 'views.publish' && v.user_id === USER_ID)).toHaveLength(2);
  });
});
