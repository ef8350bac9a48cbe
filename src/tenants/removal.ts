import type { Authorize } from '@slack/bolt';
import type { RemovalTarget } from '../app/removal.js';
import type { Deps } from '../deps.js';
import { DIGEST_KINDS } from '../digests.js';
import type { Logger } from '../log.js';
import type { QueueInspector } from '../queue/engine.js';
import { gate } from '../slack/gate.js';
import { quote } from '../slack/mrkdwn.js';
import { payloadOf } from '../slack/payload.js';
import { RECORD_TTL_MS } from '../store/jobs.js';
import { keys } from '../store/keys.js';
import { lastLossOf } from '../store/loss.js';
import { type Store, StoreUnavailableError } from '../store/store.js';
import type { DigestMachinery } from '../visitors/index.js';
import { installationOf, type WorkspaceRef } from '../workspace-ref.js';
import { type Installations, tenantOfQuery } from './installations.js';
import { discardJobsOf } from './queued-work.js';
import { takenOut } from './taken-out.js';
import { orgTeamAccess } from './team-access.js';
import type { Tenancy } from './tenancy.js';

/**
 * Removals when the app serves many workspaces: of an installation it holds, confirmed with that installation's
 * token (renewed first when it rotates and has expired: only then does Slack say whether it is gone). Everything the workspace stored goes (installation, settings, jobs, digests and their schedulers, its jobs
 * in the queues; posts already in Slack stay; the schedulers end through the visitors' `digestMachinery`, given by the
 * composition), so nothing of it is polled or posted again while the others go on.
 */
export function manyRemoval(
  root: Pick<Deps, 'workspaces' | 'log' | 'store'>,
  { installations, renew }: Pick<Tenancy, 'installations' | 'renew'>,
  queues: Pick<QueueInspector, 'lanes' | 'discard' | 'schedules'>,
  digests: Pick<DigestMachinery, 'endDigests' | 'endSubscription'>,
): RemovalTarget {
  return {
    async served(ref) {
      const tenant = installationOf(ref);
      const installation = await installations.read(tenant);
      if (!installation) return undefined;
      const { token, userId, refreshToken } = installation.bot;
      return { token, botUserId: userId, ...(refreshToken && { renew: () => renew(tenant, installation) }) };
    },
    async remove(ref: WorkspaceRef, reason, gone) {
      const tenant = installationOf(ref);
      // Installed again while Slack was asked (a new token): a reinstall over a kept installation, as any other.
      const now = await installations.read(tenant);
      if (now && gone !== undefined && now.bot.token !== gone) {
        const where = { team: ref.teamId, enterprise: ref.enterpriseId };
        root.log.warn('slack.removal_ignored', { reason, ...where, why: 'installed_again' });
        return;
      }
      // Its digests' schedulers live in the engine, not under the workspace's keys: they end first. (Scoped as the
      // installation: an organisation's workspace taken out before is refused its own scope.)
      const installation = ref.enterpriseId ? { teamId: '', enterpriseId: ref.enterpriseId } : ref;
      const scoped = await root.workspaces.scope(installation).catch(() => undefined);
      if (scoped) await digests.endDigests(scoped, DIGEST_KINDS);
      await installations.remove(tenant);
      await root.store.scoped(tenant).kv.set(keys.workspaceRemoved(), { atMs: Date.now() }, RECORD_TTL_MS);
      // After the installation: a job still running when its workspace went adds nothing that lasts.
      const jobs = await discardJobsOf(queues, (workspace) => installationOf(workspace) === tenant);
      root.log.warn('slack.workspace_removed', {
        tenant,
        reason,
        jobs,
        deleted: 'installation, settings, jobs, digests, queued work',
      });
    },
    removed: (context) => context.workspaceGone === true,
    teamAccess: orgTeamAccess(root, queues, digests),
  };
}

/** Whether `error` (or what it wraps: Bolt's installer wraps what the store threw) is the store not answering. */
const storeDown = (error: unknown): boolean =>
  error instanceof StoreUnavailableError || (error instanceof Error && storeDown(error.cause));

/**
 * Bolt's authorize, telling a workspace with no installation (removed, or never installed), and a store that does
 * not answer, from another failure: their requests go on marked `workspaceGone` or `storeUnavailable`, so a command
 * is answered (removal.ts, `storeDownGate`) instead of refused unanswered. A workspace whose installation went with
 * a loss of the store's data is marked `installationLost` too: it is told so, not that Slack removed the app. A
 * workspace its organisation's org-wide install was taken out of is marked `workspaceGone` and `workspaceTakenOut`
 * (Slack's `team_access_*` events aside: one may come through such a workspace, about others).
 */
export function markingGone(
  authorize: Authorize<boolean>,
  installations: Pick<Installations, 'read'>,
  root: Pick<Store, 'kv' | 'scoped'>,
) {
  const marked: Authorize<boolean> = async (source, body) => {
    try {
      const authorized = await authorize(source, body);
      const ref = {
        teamId: source.teamId ?? '',
        ...(source.isEnterpriseInstall && { enterpriseId: source.enterpriseId }),
      };
      if (teamAccessEvent(body) || !(await takenOut.is(root, ref))) return authorized;
      return { workspaceGone: true, workspaceTakenOut: true };
    } catch (error) {
      // Asked no further: a second read would wait as long again, past Slack's 3 seconds.
      if (storeDown(error)) return { storeUnavailable: true };
      const tenant = tenantOfQuery(source);
      const installed = await installations.read(tenant).catch(() => true);
      if (installed) throw error;
      return { workspaceGone: true, ...((await installationLost(root, tenant)) && { installationLost: true }) };
    }
  };
  return marked;
}

const teamAccessEvent = (body: unknown) => /^team_access_/.test(payloadOf(body).event?.type ?? '');

/**
 * Whether a workspace with no installation lost it with the store's data: the store lost its data, and the
 * workspace left no mark of a removal (`workspace:removed`, kept 30 days) since.
 */
async function installationLost(root: Pick<Store, 'kv' | 'scoped'>, tenant: string): Promise<boolean> {
  try {
    if ((await lastLossOf(root)) === undefined) return false;
    return (await root.scoped(tenant).kv.get(keys.workspaceRemoved())) === undefined;
  } catch {
    return false; // the store not answering: Slack's reason stands
  }
}

/** The sentence a command gets when its workspace could not be read (the store not answering), with what was typed. */
export function storeDownAnswer(command: string, text: string): string {
  return (
    ':warning: My storage is not answering right now, so nothing was run. Please send it again in a minute:\n' +
    quote(`${command} ${text}`.trim())
  );
}

/**
 * Requests whose workspace the store could not say (`markingGone`) stop here: a command is answered in its ack with
 * what was typed, anything else acknowledged (Slack sends events again; a click can be clicked again).
 */
export const storeDownGate = (log: Logger) =>
  gate(
    (context) => context.storeUnavailable === true,
    storeDownAnswer,
    (context, command) => log.warn('store.unavailable', { op: 'authorize', team: context.teamId, command }),
  );
