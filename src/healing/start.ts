import type { Deps } from '../deps.js';
import type { QueueInspector } from '../queue/engine.js';
import { keys } from '../store/keys.js';
import type { StoreLoss } from '../store/loss.js';
import { onOneInstance } from '../store/one-instance.js';
import { unlessGone, type WorkspaceRef } from '../workspace-ref.js';
import { added, type DigestHealing, type Healed, healWorkspace, NOTHING_HEALED } from './heal.js';

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
 * Rebuilds what the store lost at `lostAtMs` from Slack and the service, on one instance (`onOneInstance`: the
 * others wait, done once the loss is recorded healed; a failure midway is tried again, a stop lets the claim go): the
 * one holding the claim heals every workspace the app serves and records the loss as healed. Resolves with what
 * this instance healed.
 */
export async function healLoss(
  deps: Deps,
  engine: QueueInspector,
  lostAtMs: number,
  digests: DigestHealing,
  { retryMs }: HealOptions = {},
): Promise<Healed> {
  const lost_at = new Date(lostAtMs).toISOString();
  // What earlier tries of this instance healed: a channel healed in full is not read again.
  const done = new Set<string>();
  let total = NOTHING_HEALED;
  let beganAtMs: number | undefined;
  const healed = await onOneInstance(deps, {
    key: keys.healing(),
    event: 'store.heal',
    retryMs,
    doneElsewhere: () => healedSince(deps, lostAtMs),
    work: async (stillOurs) => {
      // Recorded as healed up to when this heal began (the loss's clock, the wall clock): a loss that another
      // instance noticed and dated a moment later, before this began, is the same loss and is healed by it.
      beganAtMs ??= Math.max(lostAtMs, Date.now());
      const workspaces = await deps.workspaces.all();
      // Many workspaces: their installations were in the store too, so no workspace is left to heal.
      const impossible = workspaces.length === 0 && deps.config.oauth !== undefined;
      const healed = impossible ? NOTHING_HEALED : await healAll(deps, engine, digests, workspaces, done, stillOurs);
      const { slackWaitMs, ...counts } = healed;
      total = added(total, { ...counts, failed: 0 });
      // Slack's Retry-After, when it answered 429: the next try waits at least that long.
      if (healed.failed > 0) return { again: { afterMs: slackWaitMs ?? 0, fields: { failed: healed.failed } } };
      await deps.store.kv.set(keys.healed(), beganAtMs); // kept as long as the marker: a restart finds it healed
      if (impossible) deps.log.error('store.heal_impossible', { lost_at, message: HEAL_IMPOSSIBLE_MESSAGE });
      else deps.log.info('store.healed', { lost_at, ...total });
      return { done: total };
    },
  });
  return healed ?? NOTHING_HEALED;
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
  stillOurs: () => Promise<void>,
): Promise<Healed> {
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
