import type { Context } from '@slack/bolt';
import { z } from 'zod';

/**
 * The Slack workspace a piece of work belongs to. It comes from the request once, at the door (Bolt's
 * `context.teamId` / `enterpriseId`), and travels as data with the work, into every queue job; no module looks it up
 * again. Everything the work touches (its Slack token, its Mintlify key and projects, its store keys) is that
 * workspace's (see `Workspaces.scope`).
 */
export const WorkspaceRefSchema = z.object({
  teamId: z.string(),
  /** Set for an org-wide install on Enterprise Grid: the installation is the enterprise's. */
  enterpriseId: z.string().optional(),
});
export type WorkspaceRef = z.infer<typeof WorkspaceRefSchema>;

/** The installation serving a workspace, and so the scope of its data: an org-wide install's organisation, else it. */
export function installationOf(ref: WorkspaceRef): string {
  return ref.enterpriseId ?? ref.teamId;
}

/** The workspace no longer has the app (uninstalled, tokens revoked): its work is dropped, not retried. */
export class WorkspaceGoneError extends Error {
  override name = 'WorkspaceGoneError';
  readonly code = 'workspace_gone';
  constructor(readonly workspace: WorkspaceRef) {
    super(`the app is no longer installed in ${installationOf(workspace)}`);
  }
}

/** The workspace Bolt resolved for a request. */
export function workspaceOf(context: Context): WorkspaceRef {
  return {
    teamId: context.teamId ?? '',
    ...(context.isEnterpriseInstall && context.enterpriseId && { enterpriseId: context.enterpriseId }),
  };
}

/** The one workspace of a single-workspace deployment, as work names it. */
export const SINGLE_WORKSPACE: WorkspaceRef = { teamId: '' };

/** `undefined` for a workspace that removed the app; any other failure is thrown on. */
export function unlessGone(error: unknown): undefined {
  if (error instanceof WorkspaceGoneError) return undefined;
  throw error;
}
