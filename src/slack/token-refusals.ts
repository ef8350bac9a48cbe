import { installationOf, type WorkspaceRef } from '../workspace-ref.js';

/** A workspace whose token Slack refused is checked again only after this long: once, not per call. */
const QUIET_MS = 60_000;

/**
 * Slack refusing a workspace's token on any call the app makes (the Web API clients report it: `client.ts`), for
 * when the removal event never comes (Socket Mode down, a deploy, the endpoint down). Each workspace's refusal is
 * handed on once a minute at most, to the removal's confirmation (`auth.test`), never believed as it is.
 */
export interface TokenRefusals {
  seen(ref: WorkspaceRef): void;
  /** Refusals go to `confirm` from now on (the removals are made after the clients that hear them). */
  start(confirm: (ref: WorkspaceRef) => Promise<void>): void;
}

export function tokenRefusals(now: () => number = Date.now): TokenRefusals {
  let confirm: ((ref: WorkspaceRef) => Promise<void>) | undefined;
  const checked = new Map<string, number>();
  return {
    seen(ref) {
      const tenant = installationOf(ref);
      const at = now();
      if (!confirm || at - (checked.get(tenant) ?? -QUIET_MS) < QUIET_MS) return;
      for (const [other, when] of checked) if (at - when >= QUIET_MS) checked.delete(other);
      checked.set(tenant, at);
      void confirm(ref);
    },
    start(handler) {
      confirm = handler;
    },
  };
}
