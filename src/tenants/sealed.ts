import type { z } from 'zod';
import type { Logger } from '../log.js';
import type { Store } from '../store/store.js';
import type { Secrets } from './secrets.js';

/** Records of one workspace kept sealed at rest (its installation, its Mintlify settings): JSON in an envelope. */
export interface SealedRecords {
  /** The record, `undefined` when there is none; throws `SecretError` when no key this process has opens it. */
  get<S extends z.ZodType>(key: string, schema: S): Promise<z.output<S> | undefined>;
  set(key: string, value: unknown): Promise<void>;
}

export function sealedRecords(store: Pick<Store, 'kv'>, secrets: Secrets, tenant: string, log: Logger): SealedRecords {
  const set = async (key: string, value: unknown) => {
    await store.kv.set(key, secrets.seal(JSON.stringify(value), tenant));
  };
  return {
    async get(key, schema) {
      const envelope = await store.kv.get<unknown>(key);
      if (typeof envelope !== 'string') return undefined;
      const parsed = schema.safeParse(JSON.parse(secrets.open(envelope, tenant)));
      if (!parsed.success) {
        log.error('secrets.unexpected_record', { tenant, key });
        return undefined;
      }
      // Sealed with an earlier key (a rotation): sealed again with the current one, so the old key can go.
      if (secrets.stale(envelope)) {
        await set(key, parsed.data).then(
          () => log.info('secrets.resealed', { tenant, key }),
          (error: unknown) => log.warn('secrets.reseal_failed', { tenant, key, error }),
        );
      }
      return parsed.data;
    },
    set,
  };
}
