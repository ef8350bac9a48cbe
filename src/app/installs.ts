import type { Config } from '../config/config.js';
import type { Deps } from '../deps.js';
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics.js';
import type { QueueInspector } from '../queue/engine.js';
import type { Store } from '../store/store.js';
import type { Installer } from '../tenants/install.js';
import { manyRemoval } from '../tenants/removal.js';
import { watchSealingKey } from '../tenants/sealing-check.js';
import { createTenancy, type Tenancy } from '../tenants/tenancy.js';
import { digestMachinery } from '../visitors/digest/machinery.js';
import type { Probes } from './probes.js';
import type { RemovalTarget } from './removal.js';
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
  /** Where `app_uninstalled`, `tokens_revoked` and `team_access_revoked` go, once believed. */
  removal(root: Deps, queues: Pick<QueueInspector, 'lanes' | 'discard'>): RemovalTarget;
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
  if (oauth) {
    // The OAuth installer (and its JWT libraries) loads only when the app serves many workspaces.
    const { createInstaller, installProvider } = await import('../tenants/install.js');
    const tenancy = createTenancy({ ...config, oauth }, parts, (installations) =>
      installProvider(config, oauth, installations, parts.log),
    );
    const installer = createInstaller(tenancy.provider, parts.log);
    for (const route of installer.routes) probes.serve(route.path, route.handler);
    const sealing = watchSealingKey(parts.store, tenancy.secrets, parts.log);
    probes.check('encryption_key', sealing.opens);
    const removal: Installs['removal'] = (root, queues) => manyRemoval(root, tenancy, queues, digestMachinery);
    return { many: { tenancy, installer, sealing }, removal };
  }
  const installState = watchInstallState(parts.store, parts.log);
  probes.check('slack_installed', installState.installed);
  return { installState, removal: () => singleRemoval(installState) };
}
