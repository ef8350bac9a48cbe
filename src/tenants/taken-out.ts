import { keys } from '../store/keys.js';
import type { Store } from '../store/store.js';
import type { WorkspaceRef } from '../workspace-ref.js';

/**
 * The workspaces an organisation's org-wide install was taken out of (`team_access_revoked`, confirmed with Slack's
 * `auth.teams.list`). The organisation's installation and data stay for its other workspaces, so each is marked in
 * the organisation's scope: its work and requests stop there (`workspaces.ts`, `removal.ts`).
 */
export const takenOut = {
  async is(root: Pick<Store, 'scoped'>, ref: WorkspaceRef): Promise<boolean> {
    if (!ref.enterpriseId || !ref.teamId) return false;
    return (await root.scoped(ref.enterpriseId).kv.get(keys.workspaceTakenOut(ref.teamId))) !== undefined;
  },
  async mark(root: Pick<Store, 'scoped'>, ref: WorkspaceRef & { enterpriseId: string }, atMs: number) {
    await root.scoped(ref.enterpriseId).kv.set(keys.workspaceTakenOut(ref.teamId), { atMs });
  },
  /** Slack granted the install the workspace again: true when it had been taken out. */
  clear: (root: Pick<Store, 'scoped'>, ref: WorkspaceRef & { enterpriseId: string }) =>
    root.scoped(ref.enterpriseId).kv.delete(keys.workspaceTakenOut(ref.teamId)),
};
