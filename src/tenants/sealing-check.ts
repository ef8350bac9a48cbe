import type { Logger } from '../log.js';
import { keys } from '../store/keys.js';
import { readList } from '../store/lists.js';
import type { Store } from '../store/store.js';
import { INSTALLED_LIST } from './installations.js';
import type { Secrets } from './secrets.js';

/** What the check value holds, and the scope it is bound to (no workspace has this id). */
const CHECK_TEXT = 'mintlify-slack: SETTINGS_ENCRYPTION_KEY opens this';
const CHECK_SCOPE = ':deployment';

/** SETTINGS_ENCRYPTION_KEY (and the previous keys) open nothing this store holds: another deployment's key. */
export class WrongEncryptionKeyError extends Error {
  override name = 'WrongEncryptionKeyError';
  readonly code = 'wrong_encryption_key';
  constructor(what: string) {
    super(
      `SETTINGS_ENCRYPTION_KEY does not open ${what}: it is not the key they were sealed with. Start with that ` +
        'key. To change keys, follow docs/security.md#rotate-the-encryption-key: the new key in ' +
        'SETTINGS_ENCRYPTION_KEY, the old one in SETTINGS_ENCRYPTION_PREVIOUS_KEYS.',
    );
  }
}

/** A running instance's keys stopped opening the store: another instance started with a new key (a rotation). */
export const KEY_REPLACED_MESSAGE =
  'SETTINGS_ENCRYPTION_KEY no longer opens the secrets this store holds: another instance sealed them with a new ' +
  'key. Restart this instance with that key in SETTINGS_ENCRYPTION_KEY and this one in ' +
  'SETTINGS_ENCRYPTION_PREVIOUS_KEYS (docs/security.md#rotate-the-encryption-key).';

/** How often a running instance checks that its keys still open the check value. */
const WATCH_EVERY_MS = 5_000;

const opens = (secrets: Secrets, envelope: string, scope: string) => {
  try {
    secrets.open(envelope, scope);
    return true;
  } catch {
    return false;
  }
};

/**
 * Before serving anyone (OAuth mode), proves the encryption keys open what the store holds: a known value sealed at
 * the first start. A store without one (a first start, or one written by a release before this check) is judged
 * by its installations: when some exist and none opens, the key is wrong. Otherwise the value is sealed now.
 */
export async function checkSealingKey(store: Pick<Store, 'kv' | 'scoped'>, secrets: Secrets, log: Logger) {
  const sealed = await store.kv.get<unknown>(keys.sealingCheck());
  if (typeof sealed === 'string') {
    if (!opens(secrets, sealed, CHECK_SCOPE)) throw new WrongEncryptionKeyError('the secrets this store holds');
    if (secrets.stale(sealed)) await store.kv.set(keys.sealingCheck(), secrets.seal(CHECK_TEXT, CHECK_SCOPE));
    return;
  }
  const tenants = await readList(store, INSTALLED_LIST);
  const installations = await Promise.all(
    tenants.map(async (tenant) => ({
      tenant,
      envelope: await store.scoped(tenant).kv.get<unknown>(keys.installation()),
    })),
  );
  const stored = installations.filter((i): i is { tenant: string; envelope: string } => typeof i.envelope === 'string');
  if (stored.length > 0 && !stored.some(({ tenant, envelope }) => opens(secrets, envelope, tenant))) {
    throw new WrongEncryptionKeyError(`any of the ${stored.length} installations this store holds`);
  }
  await store.kv.set(keys.sealingCheck(), secrets.seal(CHECK_TEXT, CHECK_SCOPE));
  log.info('secrets.check_sealed', { installations: stored.length });
}

/**
 * While the app runs, whether its keys still open the check value: an instance started with a rotated key seals it
 * (and every workspace's secrets) again with the new key, which an instance still running with only the old one
 * cannot open. That instance answers nobody, so `/healthz` says so (503) and an error line says what to do, until the
 * value opens again. A store that does not answer, or holds no value, changes nothing here.
 */
export function watchSealingKey(store: Pick<Store, 'kv'>, secrets: Secrets, log: Logger, everyMs = WATCH_EVERY_MS) {
  let opening = true;
  const timer = setInterval(async () => {
    const sealed = await store.kv.get<unknown>(keys.sealingCheck()).catch(() => undefined);
    if (typeof sealed !== 'string') return;
    const now = opens(secrets, sealed, CHECK_SCOPE);
    if (opening && !now) log.error('secrets.key_replaced', { message: KEY_REPLACED_MESSAGE });
    if (!opening && now) log.info('secrets.key_opens_again');
    opening = now;
  }, everyMs);
  timer.unref();
  return { opens: () => opening, stop: () => clearInterval(timer) };
}
