import type { AllMiddlewareArgs, AnyMiddlewareArgs, Context } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import type { StoredInstallation } from '../../../src/tenants/installations.js';
import { ownOrganisation } from '../../../src/tenants/own-organisation.js';
import { captureLogs } from '../../support/logs.js';

const INITECH: StoredInstallation = {
  team: { id: 'T9' },
  user: { id: 'U9DAVE' },
  bot: { token: 'xoxb-initech-installed', userId: 'U9BOT', id: 'B9BOT', scopes: ['chat:write'] },
};

/** A message by `team`'s person in a Slack Connect channel, delivered through Acme's (T1) installation. */
async function delivered(team: string, read: (tenant: string) => Promise<StoredInstallation | undefined>) {
  const logs = captureLogs();
  const context: Context = { isEnterpriseInstall: false, teamId: 'T1', botToken: 'xoxb-acme', botUserId: 'UBOT' };
  const body = { type: 'event_callback', event: { type: 'message', user: 'U9DAVE', channel: 'C1', user_team: team } };
  let called = false;
  const next = async () => {
    called = true;
  };
  await ownOrganisation(
    { read },
    logs.log,
  )({ body, context, next, client: {} } as unknown as AnyMiddlewareArgs & AllMiddlewareArgs);
  expect(called).toBe(true);
  return { context, logs };
}

describe('a person acts with their own organisation’s installation', () => {
  it('handles the request as the author’s own workspace when it installed the app', async () => {
    const { context } = await delivered('T9', async (tenant) => (tenant === 'T9' ? INITECH : undefined));
    expect(context).toMatchObject({
      teamId: 'T9',
      isEnterpriseInstall: false,
      botToken: 'xoxb-initech-installed',
      botUserId: 'U9BOT',
      botId: 'B9BOT',
    });
  });

  it('leaves the request to the installation Slack named when the author’s has none, or cannot be read', async () => {
    expect((await delivered('T9', async () => undefined)).context).toMatchObject({
      teamId: 'T1',
      botToken: 'xoxb-acme',
    });
    const unreadable = await delivered('T9', async () => {
      throw new Error('sealed with key abc, which this process does not have');
    });
    expect(unreadable.context).toMatchObject({ teamId: 'T1', botToken: 'xoxb-acme' });
    expect(unreadable.logs.text()).toContain('"event":"slack.installation_unreadable"');
  });

  it('asks nothing about the workspace’s own people', async () => {
    const { context } = await delivered('T1', async () => {
      throw new Error('not asked');
    });
    expect(context.teamId).toBe('T1');
  });
});
