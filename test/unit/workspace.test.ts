import type { Context } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import type { Deps } from '../../src/deps.js';
import { inWorkspace, servedDeps, singleWorkspace } from '../../src/workspace.js';
import { installationOf, WorkspaceGoneError, type WorkspaceRef, workspaceOf } from '../../src/workspace-ref.js';

describe('workspaceOf', () => {
  it.each([
    ['a workspace', { teamId: 'T1', isEnterpriseInstall: false }, { teamId: 'T1' }],
    [
      'an org-wide install',
      { teamId: 'T2', enterpriseId: 'E1', isEnterpriseInstall: true },
      { teamId: 'T2', enterpriseId: 'E1' },
    ],
    [
      'a workspace of an enterprise, installed alone',
      { teamId: 'T3', enterpriseId: 'E1', isEnterpriseInstall: false },
      { teamId: 'T3' },
    ],
  ])('reads %s from Bolt’s context', (_case, context, expected) => {
    expect(workspaceOf(context as Context)).toEqual(expected);
  });
});

describe('inWorkspace', () => {
  it('runs a door with the deps of the workspace its request came from', async () => {
    const seen: string[] = [];
    const root = {
      workspaces: { scope: async ({ teamId }: { teamId: string }) => ({ workspace: { teamId } }) as unknown as Deps },
    };
    const door = inWorkspace(root, async (deps: Deps, args: { n: number }) => {
      seen.push(`${deps.workspace.teamId}:${args.n}`);
    });
    await door({ n: 1, context: { teamId: 'T9', isEnterpriseInstall: false } });
    expect(seen).toEqual(['T9:1']);
  });

  it('serves every workspace of a single-workspace deployment with the app’s own deps', async () => {
    const deps = { workspace: { teamId: '' } } as Deps;
    expect(await singleWorkspace(() => deps).scope({ teamId: 'T1' })).toBe(deps);
    expect(await singleWorkspace(() => deps).all()).toEqual([{ teamId: '' }]);
  });

  it('serves nothing once Slack said the app was removed: its work is dropped, not retried', async () => {
    const deps = { workspace: { teamId: '' } } as Deps;
    const removed = singleWorkspace(
      () => deps,
      () => false,
    );
    await expect(removed.scope({ teamId: '' })).rejects.toBeInstanceOf(WorkspaceGoneError);
    expect(await servedDeps({ workspaces: removed }, await removed.all())).toEqual([]);
  });
});

describe('servedDeps', () => {
  it('gives the deps of each workspace still served, leaving out those that removed the app', async () => {
    const scope = async ({ teamId }: WorkspaceRef) => {
      if (teamId === 'T2') throw new WorkspaceGoneError({ teamId });
      return { workspace: { teamId } } as Deps;
    };
    const served = await servedDeps({ workspaces: { scope } }, [{ teamId: 'T1' }, { teamId: 'T2' }, { teamId: 'T3' }]);
    expect(served.map((d) => d.workspace.teamId)).toEqual(['T1', 'T3']);
  });

  it('lets any other failure through: it is not a removal', async () => {
    const scope = async () => {
      throw new Error('store down');
    };
    await expect(servedDeps({ workspaces: { scope } }, [{ teamId: 'T1' }])).rejects.toThrow('store down');
  });

  it('names an org-wide install by its organisation, else the workspace', () => {
    expect(installationOf({ teamId: 'T4', enterpriseId: 'E1' })).toBe('E1');
    expect(installationOf({ teamId: 'T4' })).toBe('T4');
  });
});
