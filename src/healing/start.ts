import { setTimeout as sleep } from 'node:timers/promises';
import type { Deps } from '../deps.js';
import type { QueueInspector } from '../queue/engine.js';
import { keys } from '../store/keys.js';
import type { StoreLoss } from '../store/loss.js';
import { unlessGone, type WorkspaceRef } from '../workspace-ref.js';
import { added, type DigestHealing, type Healed, healWorkspace, NOTHING_HEALED } from './heal.js';

/** One instance heals at a time, under this claim, renewed between channels and released when it is done. */
const HEAL_CLAIM_MS = 60_000;
/** After a failed try, or while another instance heals: the first wait, doubled up to HEAL_RETRY_MAX_MS. */
const HEAL_RETRY_MS = 1_000;
const HEAL_RETRY_MAX_MS = 60_000;

/** What operators read when a loss took the installations of many workspaces with it. */
export const HEAL_IMPOSSIBLE_MESSAGE =
  'The store lost its data, and with it the installations of every workspace (and their Mintlify connections, ' +
  'sealed in the same store): nothing could be healed. Every workspace must install the app again from the install ' +
  'page and connect Mintlify again; until then its commands are answered that the app lost its installation ' +
  '(docs/operating.md#when-redis-loses-its-data).';

export interface HealOptions {
  /** The first wait between tries (tests shorten it). */
  retryMs?: number;
}

/**
 * Heals after each loss of the store this instance learns of (it found the marker gone, read a loss another found,
 * or started on a store whose last loss was never healed), one loss after the other.
 */
export function startHealing(
  deps: Deps,
  engine: QueueInspector,
  loss: Pick<StoreLoss, 'onLost'>,
  digests: DigestHealing,
  options: HealOptions = {},
): void {
  let healing = Promise.resolve();
  // A stopping instance lets its claim go at once (a heal under way stops at its next channel): another heals now.
  deps.stopping?.addEventListener('abort', () => void releaseAfterFailure(deps), { once: true });
  loss.onLost((lostAtMs) => {
    healing = healing
      .then(() => healLoss(deps, engine, lostAtMs, digests, options))
      .then(
        () => undefined,
        (error: unknown) => deps.log.error('store.heal_failed', { error }),
      );
  });
}

/**
 * Rebuilds what the store lost at `lostAtMs` from Slack and the service, on one instance: the one holding the claim
 * heals every workspace the app serves and records the loss as healed; the others wait, done once it is recorded,
 * taking over when the healer died midway (its claim lapses). A failure midway (Slack, the service, the store) is
 * tried again until it completes or the app stops. Resolves with what this instance healed.
 */
export async function healLoss(
  deps: Deps,
  engine: QueueInspector,
  lostAtMs: number,
  digests: DigestHealing,
  { retryMs = HEAL_RETRY_MS }: HealOptions = {},
): Promise<Healed> {
  const { store, log, instanceId } = deps;
  const lost_at = new Date(lostAtMs).toISOString();
  let waitMs = retryMs;
  // What earlier tries of this instance healed: a channel healed in full is not read again.
  const done = new Set<string>();
  let total = NOTHING_HEALED;
  let beganAtMs: number | undefined;
  while (!deps.stopping?.aborted) {
    let claimed = false;
    // Slack's Retry-After, when it answered 429: the next try waits at least that long.
    let slackWaitMs = 0;
    try {
      if (await healedSince(deps, lostAtMs)) return NOTHING_HEALED;
      claimed = await store.claims.claim(keys.healing(), instanceId, HEAL_CLAIM_MS);
      // Another instance may have healed it and released the claim between the look above and this claim.
      if (claimed && (await healedSince(deps, lostAtMs))) {
        await store.claims.release(keys.healing(), instanceId);
        return NOTHING_HEALED;
      }
      if (claimed) {
        // Recorded as healed up to when this heal began (the loss's clock, the wall clock): a loss that another
        // instance noticed and dated a moment later, before this began, is the same loss and is healed by it.
        beganAtMs ??= Math.max(lostAtMs, Date.now());
        const workspaces = await deps.workspaces.all();
        // Many workspaces: their installations were in the store too, so no workspace is left to heal.
        const impossible = workspaces.length === 0 && deps.config.oauth !== undefined;
        const healed = impossible ? NOTHING_HEALED : await healAll(deps, engine, digests, workspaces, done);
        const { slackWaitMs: asked = 0, ...counts } = healed;
        total = added(total, { ...counts, failed: 0 });
        if (healed.failed === 0) {
          await store.kv.set(keys.healed(), beganAtMs); // kept as long as the marker: a restart finds it healed
          await store.claims.release(keys.healing(), instanceId);
          if (impossible) log.error('store.heal_impossible', { lost_at, message: HEAL_IMPOSSIBLE_MESSAGE });
          else log.info('store.healed', { lost_at, ...total });
          return total;
        }
        await store.claims.release(keys.healing(), instanceId);
        slackWaitMs = asked;
        log.warn('store.heal_retry', { retry_in_ms: Math.max(waitMs, slackWaitMs), failed: healed.failed });
      }
    } catch (error) {
      if (claimed) await releaseAfterFailure(deps);
      log.warn('store.heal_retry', { retry_in_ms: waitMs, error });
    }
    // A stop ends the wait early; the loop then ends.
    await sleep(Math.max(waitMs, slackWaitMs), undefined, { signal: deps.stopping }).catch(() => undefined);
    waitMs = Math.min(waitMs * 2, HEAL_RETRY_MAX_MS);
  }
  return NOTHING_HEALED;
}

async function healedSince(deps: Pick<Deps, 'store'>, lostAtMs: number): Promise<boolean> {
  const healed = Number(await deps.store.kv.get(keys.healed()));
  return healed >= lostAtMs;
}

/** Every workspace healed on its own: one that cannot be read is counted as failed and the others go on. */
async function healAll(
  deps: Deps,
  engine: QueueInspector,
  digests: DigestHealing,
  workspaces: readonly WorkspaceRef[],
  done: Set<string>,
): Promise<Healed> {
  const stillOurs = async () => {
    deps.stopping?.throwIfAborted();
    if (!(await deps.store.claims.renew(keys.healing(), deps.instanceId, HEAL_CLAIM_MS)))
      throw new Error('another instance took the healing over');
  };
  let healed = NOTHING_HEALED;
  for (const ref of workspaces) {
    let workspace: Deps | undefined;
    try {
      workspace = await deps.workspaces.scope(ref).catch(unlessGone);
    } catch (error) {
      deps.log.warn('store.heal_item_failed', { team: ref.teamId, error });
      healed = added(healed, { ...NOTHING_HEALED, failed: 1 });
    }
    if (workspace) healed = added(healed, await healWorkspace(workspace, engine, digests, stillOurs, done));
  }
  return healed;
}

async function releaseAfterFailure(deps: Deps): Promise<void> {
  await deps.store.claims
    .release(keys.healing(), deps.instanceId)
    .catch((error: unknown) => deps.log.warn('store.heal_release_failed', { error }));
}
