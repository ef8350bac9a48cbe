import type { Logger } from '../log.js';
import { keys } from '../store/keys.js';
import type { Store } from '../store/store.js';
import { installationOf } from '../workspace-ref.js';
import { sealedRecords } from './sealed.js';
import { readSettings } from './settings.js';
import type { Tenancy } from './tenancy.js';

/**
 * After a rotation of SETTINGS_ENCRYPTION_KEY: every workspace's sealed records are read once at start (reading
 * seals again, with the current key, what an earlier key sealed), then what still needs an earlier key is counted
 * and logged, so the operator knows when SETTINGS_ENCRYPTION_PREVIOUS_KEYS can go.
 */
export async function finishRotation(root: Store, tenancy: Tenancy, log: Logger, previousKeys: number): Promise<void> {
  const { secrets, installations } = tenancy;
  const tenants = (await installations.all()).map(installationOf);
  let stale = 0;
  for (const tenant of tenants) {
    const scoped = root.scoped(tenant);
    await readSettings(sealedRecords(scoped, secrets, tenant, log)).catch((error: unknown) => {
      log.error('mintlify.settings_unreadable', { tenant, error });
    });
    for (const key of [keys.installation(), keys.mintlifySettings()]) {
      const envelope = await scoped.kv.get<unknown>(key);
      if (typeof envelope === 'string' && secrets.stale(envelope)) stale++;
    }
  }
  log.info('secrets.checked', {
    workspaces: tenants.length,
    sealed_with_earlier_keys: stale,
    ...(previousKeys > 0 &&
      stale === 0 && { message: 'Nothing is sealed with SETTINGS_ENCRYPTION_PREVIOUS_KEYS any more: remove them.' }),
  });
}
