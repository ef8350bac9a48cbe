import type { WebClient } from '@slack/web-api';
import { createProjects } from '../config/projects.js';
import type { Deps, Workspaces } from '../deps.js';
import type { MintlifyClient } from '../mintlify/client.js';
import { installationOf, WorkspaceGoneError, type WorkspaceRef } from '../workspace-ref.js';
import type { BotToken } from './bot-token.js';
import type { Connection, MintlifySettings } from './connection.js';
import { readConnectionLog } from './connection-log.js';
import type { Installations } from './installations.js';
import { sealedRecords } from './sealed.js';
import type { Secrets } from './secrets.js';
import { publicSettings, readSettings } from './settings.js';
import { takenOut } from './taken-out.js';

/** What is a workspace's own in many-workspace mode; everything else in its deps is the app's. */
export type WorkspaceParts = Pick<Deps, 'workspace' | 'store' | 'slack' | 'mintlify' | 'projects' | 'log'> & {
  connection: Connection;
};

export interface TenantOptions {
  root: () => Deps;
  installations: Installations;
  secrets: Secrets;
  /** Deps from a workspace's own parts (wiring.ts). */
  build(own: WorkspaceParts): Deps;
  slackFor(token: string, ref: WorkspaceRef): WebClient;
  botToken: BotToken;
  /** A Mintlify client asking with `keyFor(project)`; an empty key: nothing is sent (`not_connected`). */
  mintlifyFor(keyFor: (project: string) => string): MintlifyClient;
}

/** Settings stored that no key of this process opens. */
const UNREADABLE = Symbol('unreadable');

/** Clients kept per workspace (a WebClient is not cheap to make); the oldest are let go past this many. */
const CLIENTS_KEPT = 1_000;

/**
 * Many workspaces, each served with its own: its installation's bot token, the Mintlify project and key it
 * connected, and a store view whose every key lives under it (`Store.scoped`). Installation, settings and the
 * connection's log are read each time work is scoped, so a change made by one process is seen by every other at once.
 * A workspace its organisation's org-wide install was taken out of is gone, as one that removed the app.
 */
export function tenantWorkspaces(options: TenantOptions): Workspaces {
  const { root, installations, secrets } = options;
  const slackClients = clientCache<WebClient>();
  const mintlifyClients = clientCache<MintlifyClient>();

  const settingsOf = async (tenant: string): Promise<MintlifySettings | typeof UNREADABLE | undefined> => {
    const { store, log } = root();
    return readSettings(sealedRecords(store.scoped(tenant), secrets, tenant, log)).catch((error: unknown) => {
      // A key this process lacks (removed too early after a rotation): its people are told, the others go on.
      log.error('mintlify.settings_unreadable', { tenant, error });
      return UNREADABLE;
    });
  };

  return {
    all: () => installations.all(),
    async scope(ref: WorkspaceRef) {
      const tenant = installationOf(ref);
      const { config, log, store } = root();
      const [installation, out] = await Promise.all([installations.read(tenant), takenOut.is(store, ref)]);
      if (!installation || out) throw new WorkspaceGoneError(ref);
      const [read, connectionLog] = await Promise.all([settingsOf(tenant), readConnectionLog(store.scoped(tenant))]);
      const settings = read === UNREADABLE ? undefined : read;
      // Connected before the log existed: the person who connected it is its steward.
      const steward = connectionLog.steward ?? (settings && { userId: settings.changedBy, as: 'connector' as const });
      const apiKey = settings?.apiKey ?? '';
      // The key goes only with the projects it was connected for (`keyFor`): a job of a project disconnected or
      // changed since is never asked about with another project's key, nor with none.
      const mintlify = {
        mintlify: {
          ...config.mintlify,
          apiKey,
          projectId: settings?.projectId ?? '',
          channelProjects: settings?.channelProjects ?? {},
          projectKeys: {},
          docsUrls: settings?.docsUrl ? { [settings.projectId]: settings.docsUrl } : {},
        },
      };
      // Each project connected before is former unless still served (the log names each, and channels' others).
      const former = connectionLog.changes.flatMap((change) => [change.project ?? [], change.routed ?? []].flat());
      const projects = createProjects(mintlify, former);
      // An org-wide install's client is each workspace's: Slack refusing the organisation's token in one of them
      // (`team_access_not_granted`) is heard for that one (`token-refusals.ts`).
      const client = ref.enterpriseId ? `${tenant}/${ref.teamId}` : tenant;
      return options.build({
        workspace: ref,
        store: store.scoped(tenant),
        slack: slackClients(client, await options.botToken(ref, installation), (token) => options.slackFor(token, ref)),
        mintlify: mintlifyClients(tenant, [apiKey, ...projects.all].join(' '), () =>
          options.mintlifyFor(projects.keyFor),
        ),
        projects,
        log: log.child({ team: ref.teamId }),
        connection: {
          ...(steward && { steward }),
          ...(settings && { settings: publicSettings(settings) }),
          changes: connectionLog.changes,
          ...(read === UNREADABLE && { unreadable: true }),
        },
      });
    },
  };
}

/** A client per workspace, made again when its secret changed (a new token, another key or projects). */
function clientCache<C>() {
  const clients = new Map<string, { secret: string; client: C }>();
  return (tenant: string, secret: string, make: (secret: string) => C): C => {
    const found = clients.get(tenant);
    if (found?.secret === secret) return found.client;
    const client = make(secret);
    clients.delete(tenant);
    clients.set(tenant, { secret, client });
    const oldest = clients.keys().next().value;
    if (clients.size > CLIENTS_KEPT && oldest !== undefined) clients.delete(oldest);
    return client;
  };
}
