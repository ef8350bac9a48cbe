import type { Context } from '@slack/bolt';
import type { Deps, Workspaces } from './deps.js';
import { SINGLE_WORKSPACE, unlessGone, WorkspaceGoneError, type WorkspaceRef, workspaceOf } from './workspace-ref.js';

/**
 * One deployment, one workspace (tokens and `MINTLIFY_*` from the environment): every workspace's deps are the
 * app's own, until Slack says the app was removed from it.
 */
export function singleWorkspace(deps: () => Deps, installed: () => boolean = () => true): Workspaces {
  return {
    async scope(ref) {
      if (!installed()) throw new WorkspaceGoneError(ref);
      return deps();
    },
    all: async () => [SINGLE_WORKSPACE],
  };
}

/** The deps of each of `refs` the app still serves: a workspace that removed the app is left out. */
export async function servedDeps(
  root: { workspaces: Pick<Workspaces, 'scope'> },
  refs: readonly WorkspaceRef[],
): Promise<Deps[]> {
  const scoped = await Promise.all(refs.map((ref) => root.workspaces.scope(ref).catch(unlessGone)));
  return scoped.filter((deps): deps is Deps => deps !== undefined);
}

/** A door run with the deps of the workspace its request came from. */
export function inWorkspace<A>(
  root: { workspaces: Pick<Workspaces, 'scope'> },
  door: (deps: Deps, args: A) => Promise<void>,
): (args: A & { context: Context }) => Promise<void> {
  return async (args) => door(await root.workspaces.scope(workspaceOf(args.context)), args);
}
