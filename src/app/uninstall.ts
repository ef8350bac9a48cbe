import type { Logger } from '../log.js';
import { keys } from '../store/keys.js';
import type { Store } from '../store/store.js';
import type { WorkspaceRef } from '../workspace-ref.js';
import type { RemovalReason, RemovalTarget } from './removal.js';

/** What an operator reads when the one workspace removed the app: what stopped and what to do. */
export const REMOVED_MESSAGE =
  'Slack says the app was uninstalled from the workspace or its bot token revoked: nothing is polled, posted or ' +
  'sent any more and /healthz answers 503. Reinstall the app (OAuth & Permissions → Install to Workspace), put ' +
  'its new Bot User OAuth Token in SLACK_BOT_TOKEN and restart: jobs still running are tracked again then.';

/** How often an instance reads whether another one heard that the app was removed. */
const CHECK_EVERY_MS = 5_000;

/** Who the app is in its one workspace, as Slack's `auth.test` answered for its bot token at start. */
export interface AppIdentity {
  /** The workspace, or for an org-wide token the organisation (Slack answers its id as `team_id`). */
  teamId: string;
  enterpriseId?: string;
  orgWide: boolean;
  botUserId: string;
}

/** The identity in an `auth.test` answer. */
export function identityOf(answer: {
  team_id?: string;
  enterprise_id?: string;
  user_id?: string;
  is_enterprise_install?: boolean;
}): AppIdentity {
  return {
    teamId: answer.team_id ?? '',
    ...(answer.enterprise_id && { enterpriseId: answer.enterprise_id }),
    orgWide: answer.is_enterprise_install === true,
    botUserId: answer.user_id ?? '',
  };
}

/**
 * Whether the one workspace of a single-workspace deployment still has the app. The instance that receives a
 * removal Slack confirms marks the store, so every instance (web and workers) stops within seconds; a start whose
 * token Slack accepts clears the mark (the app was installed again).
 */
export interface InstallState {
  installed(): boolean;
  /** Who the app is, once Slack accepted its token at start. */
  identity(): AppIdentity | undefined;
  removed(reason: RemovalReason): Promise<void>;
  /** Slack accepted the bot token at start: installed (again), as `identity`. */
  accepted(identity?: AppIdentity): Promise<void>;
  stop(): void;
}

export function watchInstallState(store: Pick<Store, 'kv'>, log: Logger, everyMs = CHECK_EVERY_MS): InstallState {
  let installed = true;
  let identity: AppIdentity | undefined;
  const lost = (reason: string) => {
    if (!installed) return;
    installed = false;
    log.error('slack.app_removed', { reason, message: REMOVED_MESSAGE });
  };
  const timer = setInterval(async () => {
    // the store guard counts the failure; the next tick reads it again.
    const mark = await store.kv.get<{ reason?: string }>(keys.appRemoved()).catch(() => undefined);
    if (mark) lost(mark.reason ?? 'app_uninstalled');
  }, everyMs);
  timer.unref();
  return {
    installed: () => installed,
    identity: () => identity,
    async removed(reason) {
      lost(reason);
      await store.kv.set(keys.appRemoved(), { reason });
    },
    async accepted(answered) {
      identity = answered;
      // A store that fails here fails the next call too, with its own answer: the start goes on.
      await store.kv
        .delete(keys.appRemoved())
        .catch((error) => log.warn('store.unavailable', { op: 'install', error }));
    },
    stop: () => clearInterval(timer),
  };
}

/** Whether a removal names the one workspace the app serves (or, with an org-wide token, its organisation). */
function servesRef(me: AppIdentity, ref: WorkspaceRef): boolean {
  return ref.teamId === me.teamId || (me.orgWide && ref.enterpriseId === me.enterpriseId);
}

/** Removals in a single-workspace deployment: only of its own workspace, confirmed with its own token. */
export function singleRemoval(state: InstallState): RemovalTarget {
  return {
    async served(ref) {
      const me = state.identity();
      return me && servesRef(me, ref) ? { botUserId: me.botUserId } : undefined;
    },
    remove: (_ref, reason) => state.removed(reason),
    removed: () => !state.installed(),
  };
}
