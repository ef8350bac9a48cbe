import type { Config } from '../config/config.js';
import type { Deps } from '../deps.js';
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics.js';
import type { QueueInspector } from '../queue/engine.js';
import { type TokenRefusals, tokenRefusals } from '../slack/token-refusals.js';
import type { Store } from '../store/store.js';
import type { Installer } from '../tenants/install.js';
import { manyRemoval } from '../tenants/removal.js';
import { watchSealingKey } from '../tenants/sealing-check.js';
import { createTenancy, type Tenancy } from '../tenants/tenancy.js';
import { digestMachinery } from '../visitors/digest/machinery.js';
import type { Probes } from './probes.js';
import { createRemovals, type Removals, type RemovalTarget } from './removal.js';
import { type InstallState, singleRemoval, watchInstallState } from './uninstall.js';

/** What the app adds when it serves many workspaces: the tenancy (installations, secrets) and the installer. */
export interface ManyWorkspaces {
  tenancy: Tenancy;
  installer: Installer;
  /** Whether this instance's encryption keys still open the store (`/healthz`'s `encryption_key`). */
  sealing: { stop(): void };
}

/** How the app is installed in Slack: in many workspaces (OAuth mode), or in the one its token belongs to. */
export interface Installs {
  many?: ManyWorkspaces;
  /** Single-workspace mode: whether the workspace still has the app. */
  installState?: InstallState;
  /**
   * This process's removals: `app_uninstalled`, `tokens_revoked`, `team_access_revoked`, and Slack refusing a
   * workspace's token (or an org-wide one a workspace) on any call its clients make, each believed once Slack
   * confirms it.
   */
  removals(root: Deps, queues: Pick<QueueInspector, 'lanes' | 'discard' | 'schedules'>): Removals;
  /** One workspace: what the app's own clients call when Slack refuses the bot token (Slack's code). */
  tokenRefused?: (code: string) => void;
}

/** Removals into `target`, which the refusals the clients hear feed too. */
function removalsInto(root: Deps, target: RemovalTarget, refusals: TokenRefusals): Removals {
  const removals = createRemovals(root, target);
  refusals.start((ref, reason) => removals.believe({ reason, refs: [ref] }));
  return removals;
}

/**
 * Many workspaces: the installer's pages join `/healthz` on PORT. One workspace: Slack removing the app stops
 * every instance and `/healthz` answers 503.
 */
export async function installsOf(
  config: Config,
  parts: { store: Store; log: Logger; metrics: Metrics; slackTimeoutMs?: number | undefined },
  probes: Probes,
): Promise<Installs> {
  const { oauth } = config;
  const refusals = tokenRefusals();
  if (oauth) {
    // The OAuth installer (and its JWT libraries) loads only when the app serves many workspaces.
    const { createInstaller, installProvider } = await import('../tenants/install.js');
    const tenancy = createTenancy({ ...config, oauth }, { ...parts, refusals }, (installations) =>
      installProvider(config, oauth, installations, parts.log),
    );
    const installer = createInstaller(tenancy.provider, parts.log);
    for (const route of installer.routes) probes.serve(route.path, route.handler);
    const sealing = watchSealingKey(parts.store, tenancy.secrets, parts.log);
    probes.check('encryption_key', sealing.opens);
    const removals: Installs['removals'] = (root, queues) =>
      removalsInto(root, manyRemoval(root, tenancy, queues, digestMachinery), refusals);
    return { many: { tenancy, installer, sealing }, removals };
  }
  const installState = watchInstallState(parts.store, parts.log);
  probes.check('slack_installed', installState.installed);
  // Known once Slack accepted the token at start; a refusal before then is the start's own check.
  const tokenRefused = (code: string) => {
    const me = installState.identity();
    if (me) refusals.seen({ teamId: me.teamId }, code);
  };
  const removals = (root: Deps) => removalsInto(root, singleRemoval(installState), refusals);
  return { installState, removals, tokenRefused };
}
