import { z } from 'zod';
import type { RemovalTarget } from '../app/removal.js';
import type { Deps } from '../deps.js';
import { DIGEST_KINDS } from '../digests.js';
import type { QueueInspector } from '../queue/engine.js';
import type { DigestMachinery } from '../visitors/index.js';
import { installationOf, unlessGone, type WorkspaceRef, WorkspaceRefSchema } from '../workspace-ref.js';
import { discardJobsOf } from './queued-work.js';
import { takenOut } from './taken-out.js';

/** A digest scheduler's data: the task each occurrence runs, for a workspace and a channel (`digest/scheduler.ts`). */
const OccurrenceSchema = z.object({
  kind: z.string(),
  workspace: WorkspaceRefSchema,
  data: z.object({ channel: z.string() }),
});

type Queues = Pick<QueueInspector, 'lanes' | 'discard' | 'schedules'>;

/**
 * An organisation's org-wide install taken out of one of its workspaces (`team_access_revoked`, Slack no longer
 * listing it for the org token), or added back (`team_access_granted`). Taken out, the workspace is marked in the
 * organisation's scope, so its requests are answered that the app no longer has access and its work is dropped
 * (`takenOut`); its digests end (subscriptions and schedulers) and its queued jobs go (its jobs are no longer polled:
 * their threads cannot be posted to). The organisation's installation, data and other workspaces stay untouched.
 */
export function orgTeamAccess(
  root: Pick<Deps, 'workspaces' | 'log' | 'store'>,
  queues: Queues,
  { endSubscription }: Pick<DigestMachinery, 'endSubscription'>,
): NonNullable<RemovalTarget['teamAccess']> {
  return async ({ teamId, enterpriseId }, change) => {
    if (!enterpriseId) {
      // A workspace's own installation, which Slack lists as its own: its removal comes as app_uninstalled.
      root.log.warn('slack.removal_ignored', { reason: `team_access_${change}`, team: teamId, why: 'not_org_wide' });
      return;
    }
    const ref = { teamId, enterpriseId };
    if (change === 'granted') {
      const was = await takenOut.clear(root.store, ref);
      root.log.info('slack.workspace_added_back', { enterprise: enterpriseId, team: teamId, was_taken_out: was });
      return;
    }
    await takenOut.mark(root.store, ref, Date.now());
    const same = (workspace: WorkspaceRef) => installationOf(workspace) === enterpriseId && workspace.teamId === teamId;
    // The organisation's deps: the workspace's own would now be refused.
    const org = await root.workspaces.scope({ teamId: '', enterpriseId }).catch(unlessGone);
    const digests = org ? await endDigestsOf(org, queues, same, endSubscription) : 0;
    const jobs = await discardJobsOf(queues, same);
    root.log.warn('slack.workspace_taken_out', { enterprise: enterpriseId, team: teamId, jobs, digests });
  };
}

/**
 * Ends the digests set up in the workspace: a subscription names only its channel, so they are found by their
 * schedulers, each made with the workspace of the person who set it up. How many ended.
 */
async function endDigestsOf(
  org: Deps,
  queues: Pick<QueueInspector, 'schedules'>,
  same: (workspace: WorkspaceRef) => boolean,
  endSubscription: DigestMachinery['endSubscription'],
): Promise<number> {
  let ended = 0;
  for (const { data } of await queues.schedules('digests')) {
    const occurrence = OccurrenceSchema.safeParse(data);
    if (!occurrence.success || !same(occurrence.data.workspace)) continue;
    const kind = DIGEST_KINDS.find((k) => k.scheduledTask === occurrence.data.kind);
    if (!kind) continue;
    await endSubscription(org, occurrence.data.data.channel, kind);
    ended++;
  }
  return ended;
}
