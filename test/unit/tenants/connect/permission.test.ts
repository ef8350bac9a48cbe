import { webApi } from '@slack/bolt';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mayManage, rolesAllow } from '../../../../src/tenants/connect/permission.js';
import type { Connection } from '../../../../src/tenants/connection.js';
import { type FakeSlackApi, startFakeSlackApi } from '../../../fakes/fake-slack-api.js';
import { captureLogs } from '../../../support/logs.js';

describe('who may connect Mintlify', () => {
  let slack: FakeSlackApi;
  beforeEach(async () => {
    slack = await startFakeSlackApi();
  });
  afterEach(() => slack.close());

  const connection: Connection = { steward: { userId: 'U123ALICE', as: 'connector' }, changes: [] };
  const deps = (workspace: { teamId: string; enterpriseId?: string } = { teamId: 'T1' }) => ({
    slack: new webApi.WebClient(slack.workspace.botToken, { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } }),
    connection,
    workspace,
    log: captureLogs().log,
  });

  it.each([
    ['the person who connected it', 'U123ALICE', true],
    ['the workspace’s owner (an admin too)', 'U567OWEN', true],
    ['a member', 'U456BOB', false],
    ['a guest', 'U678GUS', false],
  ])('%s: %s', async (_, userId, allowed) => {
    expect(await mayManage(deps(), userId)).toBe(allowed);
  });

  it('only the organisation’s admins and owners for an org-wide install, not its steward', async () => {
    expect(await mayManage(deps({ teamId: 'T1', enterpriseId: 'E1' }), 'U123ALICE')).toBe(false);
    expect(rolesAllow({ is_admin: true, is_owner: true, enterprise_user: { is_admin: false } }, true)).toBe(false);
    expect(rolesAllow({ is_admin: false, enterprise_user: { is_admin: true } }, true)).toBe(true);
    expect(rolesAllow({ enterprise_user: { is_owner: true } }, true)).toBe(true);
    expect(rolesAllow({ is_owner: true }, false)).toBe(true);
    expect(rolesAllow({ enterprise_user: { is_admin: true } }, false)).toBe(true);
    expect(rolesAllow({ is_restricted: true } as never, false)).toBe(false);
  });

  it('only admins and owners when there is no steward (an install from before the log)', async () => {
    const none = { ...deps(), connection: { changes: [] } };
    expect(await mayManage(none, 'U123ALICE')).toBe(false);
    expect(await mayManage(none, 'U567OWEN')).toBe(true);
  });

  it('nobody when Slack will not say who the person is', async () => {
    slack.fail('users.info', { error: 'internal_error' });
    expect(await mayManage(deps(), 'U567OWEN')).toBe(false);
  });
});
