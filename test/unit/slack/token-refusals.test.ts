import { describe, expect, it } from 'vitest';
import { tokenRefusals } from '../../../src/slack/token-refusals.js';
import type { WorkspaceRef } from '../../../src/workspace-ref.js';

describe('tokenRefusals', () => {
  const watched = () => {
    let time = 1_000_000;
    const confirmed: WorkspaceRef[] = [];
    const refusals = tokenRefusals(() => time);
    return {
      refusals,
      confirmed,
      start: () => refusals.start(async (ref) => void confirmed.push(ref)),
      later: (ms: number) => {
        time += ms;
      },
    };
  };

  it('hands a workspace’s refusals on once a minute, not once per refused call', () => {
    const w = watched();
    w.start();
    for (let i = 0; i < 5; i++) w.refusals.seen({ teamId: 'T1' });
    expect(w.confirmed).toEqual([{ teamId: 'T1' }]);
    w.later(59_000);
    w.refusals.seen({ teamId: 'T1' });
    expect(w.confirmed).toHaveLength(1);
    w.later(1_000);
    w.refusals.seen({ teamId: 'T1' });
    expect(w.confirmed).toHaveLength(2);
  });

  it('each workspace on its own; an org-wide install is one, whichever of its workspaces met it', () => {
    const w = watched();
    w.start();
    w.refusals.seen({ teamId: 'T1' });
    w.refusals.seen({ teamId: 'T2' });
    w.refusals.seen({ teamId: 'T3', enterpriseId: 'E1' });
    w.refusals.seen({ teamId: 'T4', enterpriseId: 'E1' });
    expect(w.confirmed).toEqual([{ teamId: 'T1' }, { teamId: 'T2' }, { teamId: 'T3', enterpriseId: 'E1' }]);
  });

  it('hands nothing on before it is started (the removals are made after the clients)', () => {
    const w = watched();
    w.refusals.seen({ teamId: 'T1' });
    w.start();
    expect(w.confirmed).toEqual([]);
    w.refusals.seen({ teamId: 'T1' });
    expect(w.confirmed).toEqual([{ teamId: 'T1' }]);
  });
});
