import { AsyncLocalStorage } from 'node:async_hooks';
import type { Installation, InstallationQuery, InstallationStore } from '@slack/bolt';
import { z } from 'zod';
import type { Logger } from '../log.js';
import { keys } from '../store/keys.js';
import { changeList, readList } from '../store/lists.js';
import type { Store } from '../store/store.js';
import type { WorkspaceRef } from '../workspace-ref.js';
import { recordInstall } from './connection-log.js';
import { sealedRecords } from './sealed.js';
import { SecretError, type Secrets } from './secrets.js';

/** What the app reads of Bolt's installation (kept whole, sealed): who installed it and the bot's token. */
export const StoredInstallationSchema = z.looseObject({
  // Each part loose like the whole: Bolt's installer reads back what it stored and stores it again when it renews a
  // token (names, scopes, and with token rotation the refresh token and expiry it needs to renew the bot's).
  team: z.looseObject({ id: z.string() }).nullish(),
  enterprise: z.looseObject({ id: z.string() }).nullish(),
  isEnterpriseInstall: z.boolean().optional(),
  user: z.looseObject({ id: z.string(), token: z.string().optional(), scopes: z.array(z.string()).optional() }),
  bot: z.looseObject({
    token: z.string(),
    userId: z.string(),
    id: z.string(),
    scopes: z.array(z.string()).catch([]),
    /** Set when the app has Slack's token rotation on: the token expires at `expiresAt` (UTC seconds). */
    refreshToken: z.string().optional(),
    expiresAt: z.number().optional(),
  }),
});
export type StoredInstallation = z.infer<typeof StoredInstallationSchema>;

/** The installations of every workspace (or organisation, for an org-wide install) the app serves. */
export interface Installations extends InstallationStore {
  read(tenant: string): Promise<StoredInstallation | undefined>;
  /**
   * Every installed workspace, or organisation for an org-wide install. One whose installation does not open is
   * logged (`secrets.installation_unreadable`) and left out, so it cannot stop the work of every other.
   */
  all(): Promise<WorkspaceRef[]>;
  /** Deletes all a workspace stored (installation, settings, jobs, caches, digests) and drops it from the list. */
  remove(tenant: string): Promise<void>;
}

/** The list of installed workspaces (not in a scope). */
export const INSTALLED_LIST = { key: keys.installedWorkspaces(), lock: keys.installedWorkspacesLock() };

/** An org-wide install is the organisation's: stored once, by enterprise, and serves each of its workspaces. */
export function tenantOfQuery(query: InstallationQuery<boolean>): string {
  return (query.isEnterpriseInstall && query.enterpriseId) || query.teamId || '';
}

function tenantOfInstallation(installation: Installation): string {
  return (installation.isEnterpriseInstall && installation.enterprise?.id) || installation.team?.id || '';
}

const renewals = new AsyncLocalStorage<true>();

/**
 * Runs Bolt's installer's `authorize`, whose only store of an installation is a rotating token it renewed (every
 * 12 hours or so in each workspace): stored as it is, not recorded as an install, so Home's recent changes keep
 * saying what people did. Installs come through the OAuth callback, outside it. When the token it gives has already
 * expired, another instance spent the refresh token first (Slack takes one once; the installer then keeps the old
 * token) and stored the pair it got: that is read once more.
 */
export async function renewingTokens<T extends { botTokenExpiresAt?: number | undefined }>(
  authorize: () => Promise<T>,
): Promise<T> {
  const renewed = await renewals.run(true, authorize);
  const expired = renewed.botTokenExpiresAt !== undefined && renewed.botTokenExpiresAt * 1000 <= Date.now();
  return expired ? renewals.run(true, authorize) : renewed;
}

/** Stores a renewed token pair as `renewingTokens` does: not an install, and a workspace removed meanwhile stays so. */
export function storeRenewal(installations: Pick<InstallationStore, 'storeInstallation'>, renewed: StoredInstallation) {
  return renewals.run(true, () => installations.storeInstallation(renewed as Installation));
}

/** Bolt's installation store on the app's store: each installation sealed in its workspace's scope. */
export function createInstallations(
  root: Store,
  secrets: Secrets,
  log: Logger,
  instanceId: string,
  now: () => number = Date.now,
): Installations {
  const records = (tenant: string) => sealedRecords(root.scoped(tenant), secrets, tenant, log);
  const read = (tenant: string) => records(tenant).get(keys.installation(), StoredInstallationSchema);
  const remove = async (tenant: string) => {
    await root.dropScope(tenant);
    await changeList(root, INSTALLED_LIST, instanceId, (tenants) => tenants.filter((t) => t !== tenant));
  };
  return {
    read,
    async all() {
      const tenants = await readList(root, INSTALLED_LIST);
      const readable = (tenant: string) =>
        read(tenant).catch((error: unknown) => {
          if (!(error instanceof SecretError)) throw error;
          log.error('secrets.installation_unreadable', { tenant, error });
          return undefined;
        });
      const found = await Promise.all(
        tenants.map(async (tenant) => ({ tenant, installation: await readable(tenant) })),
      );
      return found.flatMap(({ tenant, installation }) => {
        if (!installation) return [];
        const org = installation.isEnterpriseInstall;
        return [org ? { teamId: '', enterpriseId: tenant } : { teamId: tenant }];
      });
    },
    remove,
    async storeInstallation(installation) {
      const tenant = tenantOfInstallation(installation);
      if (renewals.getStore()) {
        // A workspace removed while its token was being renewed stays removed.
        if (await read(tenant)) await records(tenant).set(keys.installation(), installation);
        return;
      }
      // Installing again (anyone may, where members may add apps) is recorded but gives no rights (connection-log.ts).
      // A store that does not answer fails the install (the page says so, tried again it is told truly); one that
      // cannot be opened (sealed with another key) is installed over, as a reinstall.
      const stored = await read(tenant).catch((error: unknown) => {
        if (error instanceof SecretError) return true;
        throw error;
      });
      // A connection kept without its installation (that record alone lost) makes this an install again too.
      const connected = !stored && (await root.scoped(tenant).kv.get(keys.mintlifySettings())) !== undefined;
      // Recorded first: an install whose record failed is still the first when tried again.
      await recordInstall(root.scoped(tenant), installation.user.id, now(), !stored && !connected);
      await records(tenant).set(keys.installation(), installation);
      await changeList(root, INSTALLED_LIST, instanceId, (tenants) => [...new Set([...tenants, tenant])]);
    },
    async fetchInstallation(query) {
      const installation = await read(tenantOfQuery(query));
      if (!installation) throw new Error(`no installation for ${tenantOfQuery(query) || 'an unnamed workspace'}`);
      return installation as Installation<'v2', boolean>;
    },
    deleteInstallation: (query) => remove(tenantOfQuery(query)),
  };
}
