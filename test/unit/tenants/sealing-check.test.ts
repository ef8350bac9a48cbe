import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { keys } from '../../../src/store/keys.js';
import { createStore, type Store } from '../../../src/store/store.js';
import { createInstallations } from '../../../src/tenants/installations.js';
import { checkSealingKey, WrongEncryptionKeyError } from '../../../src/tenants/sealing-check.js';
import { createSecrets } from '../../../src/tenants/secrets.js';
import { captureLogs } from '../../support/logs.js';

const OLD = Buffer.alloc(32, 1);
const NEW = Buffer.alloc(32, 2);
const OTHER = Buffer.alloc(32, 3);

const installation = (team: string) => ({
  team: { id: team },
  user: { id: 'U1' },
  bot: { id: 'B1', userId: 'UB1', token: `xoxb-${team}-token` },
  isEnterpriseInstall: false,
});

describe('checkSealingKey', () => {
  let store: Store;
  beforeEach(async () => {
    store = await createStore({ log: captureLogs().log });
  });
  afterEach(() => store.close());

  const check = (current: Buffer, previous: Buffer[] = []) =>
    checkSealingKey(store, createSecrets(current, previous), captureLogs().log);

  it('seals its value at the first start, then opens it with the same key and refuses another', async () => {
    await check(NEW);
    expect(await store.kv.get(keys.sealingCheck())).toMatch(/^v1\./);
    await check(NEW);
    await expect(check(OTHER)).rejects.toBeInstanceOf(WrongEncryptionKeyError);
    await expect(check(OTHER)).rejects.toThrow(/SETTINGS_ENCRYPTION_KEY[\s\S]*rotate-the-encryption-key/);
  });

  it('during a rotation opens it with the previous key and seals it again with the new one', async () => {
    await check(OLD);
    await check(NEW, [OLD]);
    await check(NEW); // the previous key could go
  });

  it('without its value (an earlier release), passes when any installation opens and refuses when none does', async () => {
    const log = captureLogs().log;
    await createInstallations(store, createSecrets(OTHER), log, 'i1').storeInstallation(installation('T1') as never);
    await createInstallations(store, createSecrets(NEW), log, 'i1').storeInstallation(installation('T2') as never);
    await store.kv.delete(keys.sealingCheck());
    await expect(check(OLD)).rejects.toThrow(/any of the 2 installations/);
    expect(await store.kv.get(keys.sealingCheck())).toBeUndefined();
    await check(NEW); // T2's opens: T1's is that workspace's problem, reported when it is read
    expect(await store.kv.get(keys.sealingCheck())).toMatch(/^v1\./);
  });
});

describe('the list of installations', () => {
  it('leaves out, and logs, one whose installation no key opens', async () => {
    const store = await createStore({ log: captureLogs().log });
    const logs = captureLogs();
    try {
      await createInstallations(store, createSecrets(OTHER), logs.log, 'i1').storeInstallation(
        installation('T1') as never,
      );
      const installations = createInstallations(store, createSecrets(NEW), logs.log, 'i1');
      await installations.storeInstallation(installation('T2') as never);
      expect(await installations.all()).toEqual([{ teamId: 'T2' }]);
      expect(logs.text()).toMatch(/"level":"error","event":"secrets\.installation_unreadable","tenant":"T1"/);
    } finally {
      await store.close();
    }
  });
});
