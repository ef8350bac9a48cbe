import { describe, expect, it } from 'vitest';
import { tokenRefusals } from '../../../src/slack/token-refusals.js';
import type { WorkspaceRef } from '../../../src/workspace-ref.js';

describe('tokenRefusals', () => {
  const watched = () => {
    let time = 1_000_000;
    const confirmed: WorkspaceRef[] = [];
    const reasons: string[] = [];
    const refusals = tokenRefusals(() => time);
    return {
      refusals,
      confirmed,
      reasons,
      start: () =>
        refusals.start(async (ref, reason) => {
          confirmed.push(ref);
          reasons.push(reason);
        }),
      later: (ms: number) => {
        time += ms;
      },
    };
  };

  it('hands a workspace’s refusals on once a minute, not once per refused call', () => {
    const w = watched();
    w.start();
    for (let i = 0; i < 5; i++) w.refusals.seen({ teamId: 'T1' }, 'invalid_auth');
    expect(w.confirmed).toEqual([{ teamId: 'T1' }]);
    w.later(59_000);
    w.refusals.seen({ teamId: 'T1' }, 'invalid_auth');
    expect(w.confirmed).toHaveLength(1);
    w.later(1_000);
    w.refusals.seen({ teamId: 'T1' }, 'invalid_auth');
    expect(w.confirmed).toHaveLength(2);
  });

  it('each workspace on its own; an org-wide install is one, whichever of its workspaces met it', () => {
    const w = watched();
    w.start();
    w.refusals.seen({ teamId: 'T1' }, 'invalid_auth');
    w.refusals.seen({ teamId: 'T2' }, 'invalid_auth');
    w.refusals.seen({ teamId: 'T3', enterpriseId: 'E1' }, 'invalid_auth');
    w.refusals.seen({ teamId: 'T4', enterpriseId: 'E1' }, 'invalid_auth');
    expect(w.confirmed).toEqual([{ teamId: 'T1' }, { teamId: 'T2' }, { teamId: 'T3', enterpriseId: 'E1' }]);
  });

  it('hands nothing on before it is started (the removals are made after the clients)', () => {
    const w = watched();
    w.refusals.seen({ teamId: 'T1' }, 'invalid_auth');
    w.start();
    expect(w.confirmed).toEqual([]);
    w.refusals.seen({ teamId: 'T1' }, 'invalid_auth');
    expect(w.confirmed).toEqual([{ teamId: 'T1' }]);
  });

  it('team_access_not_granted: each workspace of an org-wide install on its own, once a minute', () => {
    const w = watched();
    w.start();
    const east = { teamId: 'T4', enterpriseId: 'E1' };
    const west = { teamId: 'T5', enterpriseId: 'E1' };
    for (let i = 0; i < 3; i++) w.refusals.seen(west, 'team_access_not_granted');
    w.refusals.seen(east, 'team_access_not_granted');
    w.refusals.seen(west, 'invalid_auth'); // the organisation's token: a claim of its own
    expect(w.confirmed).toEqual([west, east, west]);
    expect(w.reasons).toEqual(['team_access_not_granted', 'team_access_not_granted', 'token_refused']);
    w.later(60_000);
    w.refusals.seen(west, 'team_access_not_granted');
    expect(w.confirmed).toHaveLength(4);
  });

  it('team_access_not_granted is nothing for an install that is not org-wide, or work of no one workspace', () => {
    const w = watched();
    w.start();
    w.refusals.seen({ teamId: 'T1' }, 'team_access_not_granted'); // a workspace's own token, or the one of one
    w.refusals.seen({ teamId: '', enterpriseId: 'E1' }, 'team_access_not_granted'); // the organisation's own work
    expect(w.confirmed).toEqual([]);
  });
});
