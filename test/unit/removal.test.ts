import type { Context } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { claimOf } from '../../src/app/removal.js';
import { type InstallState, identityOf, singleRemoval } from '../../src/app/uninstall.js';

const context = (fields: Partial<Context> = {}): Context => ({ isEnterpriseInstall: false, teamId: 'T1', ...fields });

describe('claimOf: what a removal event says is gone', () => {
  it.each([
    [{ type: 'app_uninstalled' }, context(), { reason: 'app_uninstalled', refs: [{ teamId: 'T1' }] }],
    [
      { type: 'app_uninstalled' },
      context({ isEnterpriseInstall: true, enterpriseId: 'E1' }),
      { reason: 'app_uninstalled', refs: [{ teamId: 'T1', enterpriseId: 'E1' }] },
    ],
    [
      { type: 'tokens_revoked', tokens: { oauth: ['U1'], bot: ['UBOT'] } },
      context(),
      { reason: 'tokens_revoked', refs: [{ teamId: 'T1' }], botUsers: ['UBOT'] },
    ],
    [
      { type: 'team_access_revoked', team_ids: ['T5', 'T6'] },
      context({ enterpriseId: 'E1' }),
      {
        reason: 'team_access_revoked',
        refs: [
          { teamId: 'T5', enterpriseId: 'E1' },
          { teamId: 'T6', enterpriseId: 'E1' },
        ],
      },
    ],
    [
      { type: 'team_access_granted', team_ids: ['T5'] },
      context({ enterpriseId: 'E1' }),
      { reason: 'team_access_granted', refs: [{ teamId: 'T5', enterpriseId: 'E1' }] },
    ],
  ])('%j', (event, ctx, claim) => {
    expect(claimOf(event, ctx)).toEqual(claim);
  });

  it.each([
    { type: 'tokens_revoked', tokens: { oauth: ['U1'] } },
    { type: 'tokens_revoked', tokens: { bot: [] } },
    { type: 'tokens_revoked' },
    { type: 'app_home_opened' },
  ])('claims nothing for %j', (event) => {
    expect(claimOf(event, context())).toBeUndefined();
  });
});

describe('single workspace: which removals name it', () => {
  const state = (identity = identityOf({ team_id: 'T1', user_id: 'UBOT', is_enterprise_install: false })) =>
    ({ identity: () => identity, installed: () => true }) as unknown as InstallState;

  it('serves its own team only, with its bot user', async () => {
    const removal = singleRemoval(state());
    expect(await removal.served({ teamId: 'T1' })).toEqual({ botUserId: 'UBOT' });
    expect(await removal.served({ teamId: 'T1H9RESGL' })).toBeUndefined();
  });

  it('with an org-wide token, its organisation', async () => {
    const org = identityOf({ team_id: 'E1', enterprise_id: 'E1', user_id: 'UORG', is_enterprise_install: true });
    const removal = singleRemoval(state(org));
    expect(await removal.served({ teamId: 'T5', enterpriseId: 'E1' })).toEqual({ botUserId: 'UORG' });
    expect(await removal.served({ teamId: 'T5' })).toBeUndefined();
    expect(await removal.served({ teamId: 'T7', enterpriseId: 'E2' })).toBeUndefined();
  });

  it('names nothing before Slack accepted its token at start', async () => {
    const removal = singleRemoval({ identity: () => undefined } as unknown as InstallState);
    expect(await removal.served({ teamId: 'T1' })).toBeUndefined();
  });
});
