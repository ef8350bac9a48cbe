import { installationOf, type WorkspaceRef } from '../workspace-ref.js';
import { TEAM_ACCESS_NOT_GRANTED } from './errors.js';

/** A workspace whose token Slack refused is checked again only after this long: once, not per call. */
const QUIET_MS = 60_000;

/**
 * What a refusal claims: the workspace's token gone (`token_refused`, confirmed with `auth.test`), or an org-wide
 * install taken out of one of its workspaces (`team_access_not_granted`, confirmed with `auth.teams.list`).
 */
export type RefusalReason = 'token_refused' | 'team_access_not_granted';

/**
 * Slack refusing a workspace's token on any call the app makes (the Web API clients report it: `client.ts`), for
 * when the removal event never comes (Socket Mode down, a deploy, the endpoint down, an event not subscribed to).
 * Each workspace's refusal is handed on once a minute at most, to the removal's confirmation, never believed as it
 * is. `team_access_not_granted` counts only for a workspace of an org-wide install (the organisation's token serves
 * it), each workspace on its own; any other refusal is its installation's.
 */
export interface TokenRefusals {
  /** Slack refused the token serving `ref` with `code`. */
  seen(ref: WorkspaceRef, code: string): void;
  /** Refusals go to `confirm` from now on (the removals are made after the clients that hear them). */
  start(confirm: (ref: WorkspaceRef, reason: RefusalReason) => Promise<void>): void;
}

export function tokenRefusals(now: () => number = Date.now): TokenRefusals {
  let confirm: ((ref: WorkspaceRef, reason: RefusalReason) => Promise<void>) | undefined;
  const checked = new Map<string, number>();
  return {
    seen(ref, code) {
      const teamAccess = code === TEAM_ACCESS_NOT_GRANTED;
      // Another installation's token (a workspace's own, or the one token of a single workspace) is not taken out of
      // one workspace of many: nothing to confirm.
      if (teamAccess && !(ref.enterpriseId && ref.teamId)) return;
      const key = teamAccess ? `${installationOf(ref)}/${ref.teamId}` : installationOf(ref);
      const at = now();
      if (!confirm || at - (checked.get(key) ?? -QUIET_MS) < QUIET_MS) return;
      for (const [other, when] of checked) if (at - when >= QUIET_MS) checked.delete(other);
      checked.set(key, at);
      void confirm(ref, teamAccess ? 'team_access_not_granted' : 'token_refused');
    },
    start(handler) {
      confirm = handler;
    },
  };
}
