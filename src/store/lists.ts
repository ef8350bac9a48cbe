import { setTimeout as delay } from 'node:timers/promises';
import { z } from 'zod';
import type { Store } from './store.js';

/** A list of ids kept as one value: where it is and the claim that guards changing it. */
export interface ListKeys {
  key: string;
  lock: string;
}

const LOCK_TTL_MS = 5_000;
const LOCK_TRIES = 100;
const ListSchema = z.array(z.string());

/** The ids in the list; none when it was never written (or holds something else). */
export async function readList(store: Pick<Store, 'kv'>, { key }: ListKeys): Promise<string[]> {
  const parsed = ListSchema.safeParse(await store.kv.get(key));
  return parsed.success ? parsed.data : [];
}

/**
 * Runs `change` under a short claim on `lock` owned by this call, so instances changing one value at once cannot lose
 * each other's changes (Keyv alone only offers get-then-set).
 */
export async function underClaim<T>(
  store: Pick<Store, 'claims'>,
  lock: string,
  instanceId: string,
  change: () => Promise<T>,
): Promise<T> {
  const owner = `${instanceId}:${Math.random()}`;
  for (let attempt = 0; !(await store.claims.claim(lock, owner, LOCK_TTL_MS)); attempt++) {
    if (attempt > LOCK_TRIES) throw new Error(`${lock} is held`);
    await delay(20);
  }
  try {
    return await change();
  } finally {
    await store.claims.release(lock, owner);
  }
}

/** Changes the list under its claim (`underClaim`). */
export async function changeList(
  store: Pick<Store, 'kv' | 'claims'>,
  keys: ListKeys,
  instanceId: string,
  change: (ids: string[]) => string[],
): Promise<void> {
  await underClaim(store, keys.lock, instanceId, async () => {
    await store.kv.set(keys.key, change(await readList(store, keys)));
  });
}
