import type { Authorize } from '@slack/bolt';
import { z } from 'zod';
import type { RemovalTarget } from '../app/removal.js';
import type { Deps } from '../deps.js';
import { DIGEST_KINDS } from '../digests.js';
import type { QueueInspector } from '../queue/engine.js';
import { RECORD_TTL_MS } from '../store/jobs.js';
import { keys } from '../store/keys.js';
import type { DigestMachinery } from '../visitors/index.js';
import { installationOf, type WorkspaceRef, WorkspaceRefSchema } from '../workspace-ref.js';
import { type Installations, tenantOfQuery } from './installations.js';

/** Every queue job carries the workspace it belongs to. */
const JobOfWorkspaceSchema = z.object({ workspace: WorkspaceRefSchema });

/** Deletes every job of `tenant` still in the queues (waiting, delayed, failed: prompts among them). */
export async function discardJobsOf(queues: Pick<QueueInspector, 'lanes' | 'discard'>, tenant: string) {
  const ofTenant = (data: unknown) => {
    const parsed = JobOfWorkspaceSchema.safeParse(data);
    return parsed.success && installationOf(parsed.data.workspace) === tenant;
  };
  let discarded = 0;
  for (const lane of await queues.lanes()) discarded += await queues.discard(lane, ofTenant);
  return discarded;
}

/**
 * Removals when the app serves many workspaces: of an installation it holds, confirmed with that installation's
 * token. Everything the workspace stored goes (installation, settings, jobs, digests and their schedulers, its jobs
 * in the queues; posts already in Slack stay; the schedulers end through the visitors' `digestMachinery`, given by the
 * composition), so nothing of it is polled or posted again while the others go on.
 */
export function manyRemoval(
  root: Pick<Deps, 'workspaces' | 'log' | 'store'>,
  installations: Installations,
  queues: Pick<QueueInspector, 'lanes' | 'discard'>,
  { endDigests }: Pick<DigestMachinery, 'endDigests'>,
): RemovalTarget {
  return {
    async served(ref) {
      const installation = await installations.read(installationOf(ref));
      return installation && { token: installation.bot.token, botUserId: installation.bot.userId };
    },
    async remove(ref: WorkspaceRef, reason) {
      const tenant = installationOf(ref);
      // Its digests' schedulers live in the engine, not under the workspace's keys: they end first.
      const scoped = await root.workspaces.scope(ref).catch(() => undefined);
      if (scoped) await endDigests(scoped, DIGEST_KINDS);
      await installations.remove(tenant);
      await root.store.scoped(tenant).kv.set(keys.workspaceRemoved(), { atMs: Date.now() }, RECORD_TTL_MS);
      // After the installation: a job still running when its workspace went adds nothing that lasts.
      const jobs = await discardJobsOf(queues, tenant);
      root.log.warn('slack.workspace_removed', {
        tenant,
        reason,
        jobs,
        deleted: 'installation, settings, jobs, digests, queued work',
      });
    },
    removed: (context) => context.workspaceGone === true,
  };
}

/**
 * Bolt's authorize, telling a workspace with no installation (removed, or never installed) from a failure: its
 * requests go on marked `workspaceGone`, so a command is answered (removal.ts) instead of refused unanswered.
 */
export function markingGone(authorize: Authorize<boolean>, installations: Pick<Installations, 'read'>) {
  const marked: Authorize<boolean> = async (source, body) => {
    try {
      return await authorize(source, body);
    } catch (error) {
      const installed = await installations.read(tenantOfQuery(source)).catch(() => true);
      if (installed) throw error;
      return { workspaceGone: true };
    }
  };
  return marked;
}
