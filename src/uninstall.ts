import type { AllMiddlewareArgs, App, SlackEventMiddlewareArgs } from '@slack/bolt';
import type { Deps } from './deps.js';
import type { Logger } from './log.js';
import { keys } from './store/keys.js';
import type { Store } from './store/store.js';
import type { Installations } from './tenants/installations.js';
import { endDigests } from './visitors/digest/scheduler.js';
import { installationOf, workspaceOf } from './workspace.js';

export type RemovalReason = 'app_uninstalled' | 'tokens_revoked';

/** What an operator reads when the one workspace removed the app: what stopped and what to do. */
export const REMOVED_MESSAGE =
  'Slack says the app was uninstalled from the workspace or its bot token revoked: nothing is polled, posted or ' +
  'sent any more and /healthz answers 503. Reinstall the app (OAuth & Permissions → Install to Workspace), put ' +
  'its new Bot User OAuth Token in SLACK_BOT_TOKEN and restart: jobs still running are tracked again then.';

/** How often an instance reads whether another one heard that the app was removed. */
const CHECK_EVERY_MS = 5_000;

/**
 * Whether the one workspace of a single-workspace deployment still has the app. The instance that receives
 * `app_uninstalled` or `tokens_revoked` marks the store, so every instance (web and workers) stops within seconds;
 * a start whose token Slack accepts clears the mark (the app was installed again).
 */
export interface InstallState {
  installed(): boolean;
  removed(reason: RemovalReason): Promise<void>;
  /** Slack accepted the bot token at start: installed (again). */
  accepted(): Promise<void>;
  stop(): void;
}

export function watchInstallState(store: Pick<Store, 'kv'>, log: Logger, everyMs = CHECK_EVERY_MS): InstallState {
  let installed = true;
  const lost = (reason: string) => {
    if (!installed) return;
    installed = false;
    log.error('slack.app_removed', { reason, message: REMOVED_MESSAGE });
  };
  const timer = setInterval(async () => {
    const mark = await store.kv.get<{ reason?: string }>(keys.appRemoved()).catch(() => undefined);
    if (mark) lost(mark.reason ?? 'app_uninstalled');
  }, everyMs);
  timer.unref();
  return {
    installed: () => installed,
    async removed(reason) {
      lost(reason);
      await store.kv.set(keys.appRemoved(), { reason });
    },
    async accepted() {
      // A store that fails here fails the next call too, with its own answer: the start goes on.
      await store.kv
        .delete(keys.appRemoved())
        .catch((error) => log.warn('store.unavailable', { op: 'install', error }));
    },
    stop: () => clearInterval(timer),
  };
}

type RemovalArgs = SlackEventMiddlewareArgs<'app_uninstalled' | 'tokens_revoked'> & AllMiddlewareArgs;

/** Where a removal goes: the one workspace's state, or the installations of many. */
export type Removal = { installState: InstallState } | { installations: Installations };

/**
 * `app_uninstalled`, and `tokens_revoked` for the bot's token (user tokens are not the app's concern): with many
 * workspaces, everything that workspace stored is deleted (installation, settings, jobs, digests; posts already in
 * Slack stay), so nothing of it is polled or posted again while the others go on; with one, every instance stops.
 */
export function registerRemoval(app: App, root: Pick<Deps, 'log' | 'workspaces'>, removal: Removal): void {
  const handle = async ({ event, context }: RemovalArgs) => {
    const reason = event.type;
    if (event.type === 'tokens_revoked' && (event.tokens.bot ?? []).length === 0) return;
    if ('installState' in removal) return removal.installState.removed(reason);
    const tenant = installationOf(workspaceOf(context));
    // Its digests' schedulers live in the engine, not under the workspace's keys: they end first.
    const scoped = await root.workspaces.scope(workspaceOf(context)).catch(() => undefined);
    if (scoped) await endDigests(scoped);
    await removal.installations.remove(tenant);
    root.log.warn('slack.workspace_removed', { tenant, reason, deleted: 'installation, settings, jobs, digests' });
  };
  app.event('app_uninstalled', handle);
  app.event('tokens_revoked', handle);
}
