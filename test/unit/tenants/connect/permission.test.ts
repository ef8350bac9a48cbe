import { webApi } from '@slack/bolt';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mayManage } from '../../../../src/tenants/connect/permission.js';
import { type FakeSlackApi, startFakeSlackApi } from '../../../fakes/fake-slack-api.js';
import { captureLogs } from '../../../support/logs.js';

describe('who may connect Mintlify', () => {
  let slack: FakeSlackApi;
  beforeEach(async () => {
    slack = await startFakeSlackApi();
  });
  afterEach(() => slack.close());

  const deps = () => ({
    slack: new webApi.WebClient(slack.workspace.botToken, { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } }),
    connection: { installerId: 'U123ALICE' },
    log: captureLogs().log,
  });

  it.each([
    ['the person who installed the app', 'U123ALICE', true],
    ['the workspace’s owner (an admin too)', 'U567OWEN', true],
    ['a member', 'U456BOB', false],
    ['a guest', 'U678GUS', false],
  ])('%s: %s', async (_, userId, allowed) => {
    expect(await mayManage(deps(), userId)).toBe(allowed);
  });

  it('nobody when Slack will not say who the person is', async () => {
    slack.fail('users.info', { error: 'internal_error' });
    expect(await mayManage(deps(), 'U567OWEN')).toBe(false);
  });
});
