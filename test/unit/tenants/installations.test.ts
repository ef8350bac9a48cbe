import type { Installation } from '@slack/bolt';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { keys } from '../../../src/store/keys.js';
import { createStore, type Store, StoreUnavailableError } from '../../../src/store/store.js';
import { readConnectionLog, recordChange } from '../../../src/tenants/connection-log.js';
import { createInstallations, type Installations } from '../../../src/tenants/installations.js';
import { createSecrets } from '../../../src/tenants/secrets.js';
import { captureLogs } from '../../support/logs.js';

const secrets = createSecrets(Buffer.alloc(32, 3));

function installation(over: Partial<Installation<'v2', boolean>> = {}): Installation<'v2', boolean> {
  return {
    team: { id: 'T2', name: 'Globex' },
    enterprise: undefined,
    user: { id: 'U2ANA', token: undefined, scopes: undefined },
    bot: { id: 'B2BOT', userId: 'U2BOT', token: 'xoxb-T2-secret-token', scopes: ['chat:write'] },
    isEnterpriseInstall: false,
    appId: 'A1',
    authVersion: 'v2',
    ...over,
  } as Installation<'v2', boolean>;
}

describe('installations on the store', () => {
  let store: Store;
  let installations: Installations;
  beforeEach(async () => {
    store = await createStore({ log: captureLogs().log });
    installations = createInstallations(store, secrets, captureLogs().log, 'instance-1', () => 1_000);
  });
  afterEach(() => store.close());

  it('keeps a workspace’s installation sealed in its own scope and lists the workspace', async () => {
    await installations.storeInstallation(installation());
    const sealed = await store.scoped('T2').kv.get<string>(keys.installation());
    expect(sealed).toMatch(/^v1\./);
    expect(sealed).not.toContain('xoxb-');
    expect(
      await installations.fetchInstallation({ teamId: 'T2', enterpriseId: undefined, isEnterpriseInstall: false }),
    ).toMatchObject({
      bot: { token: 'xoxb-T2-secret-token', userId: 'U2BOT' },
      user: { id: 'U2ANA' },
    });
    expect(await installations.all()).toEqual([{ teamId: 'T2' }]);
  });

  it('keeps an org-wide install once, by enterprise, and serves each of its workspaces from it', async () => {
    await installations.storeInstallation(
      installation({ team: undefined, enterprise: { id: 'E1', name: 'Umbrella' }, isEnterpriseInstall: true }),
    );
    for (const teamId of ['T4', 'T5']) {
      const found = await installations.fetchInstallation({ teamId, enterpriseId: 'E1', isEnterpriseInstall: true });
      expect(found.bot?.token).toBe('xoxb-T2-secret-token');
    }
    expect(await installations.all()).toEqual([{ teamId: '', enterpriseId: 'E1' }]);
  });

  it('refuses a workspace without an installation, and deletes all a workspace stored, leaving the others', async () => {
    await installations.storeInstallation(installation());
    await installations.storeInstallation(installation({ team: { id: 'T3', name: 'Initrode' } }));
    await store.scoped('T2').kv.set('anything', 'of T2');
    await installations.remove('T2');
    await expect(
      installations.fetchInstallation({ teamId: 'T2', enterpriseId: undefined, isEnterpriseInstall: false }),
    ).rejects.toThrow(/no installation for T2/);
    expect(await store.scoped('T2').kv.get('anything')).toBeUndefined();
    expect(await installations.all()).toEqual([{ teamId: 'T3' }]);
  });

  it('records who installed first as the steward; installing again is recorded and changes no one’s rights', async () => {
    await installations.storeInstallation(installation());
    await installations.storeInstallation(installation({ user: { id: 'U2LEO', token: undefined, scopes: undefined } }));
    const scope = store.scoped('T2');
    expect(await readConnectionLog(scope)).toEqual({
      steward: { userId: 'U2ANA', as: 'installer' },
      changes: [
        { change: 'installed', user: 'U2ANA', at: 1_000 },
        { change: 'reinstalled', user: 'U2LEO', at: 1_000 },
      ],
    });
    await recordChange(scope, { change: 'connected', user: 'U2ADA', at: 2_000, project: 'proj_a' });
    await installations.storeInstallation(installation());
    const log = await readConnectionLog(scope);
    expect(log.steward).toEqual({ userId: 'U2ADA', as: 'connector' });
    expect(log.changes.map((c) => `${c.change} ${c.user}`)).toEqual([
      'installed U2ANA',
      'reinstalled U2LEO',
      'connected U2ADA',
      'reinstalled U2ANA',
    ]);
  });

  it('a first install the store does not answer fails, and its retry still makes the installer the steward', async () => {
    const kv = store.scoped('T2').kv;
    const get = kv.get.bind(kv);
    kv.get = (() => Promise.reject(new StoreUnavailableError('The store did not answer kv.get'))) as typeof kv.get;
    await expect(installations.storeInstallation(installation())).rejects.toThrow(StoreUnavailableError);
    kv.get = get;
    // Stored, but its record in the log failed: tried again, it is still the first install.
    const set = kv.set.bind(kv);
    let sets = 0;
    kv.set = ((...args: Parameters<typeof set>) =>
      ++sets === 2
        ? Promise.reject(new StoreUnavailableError('The store did not answer kv.set'))
        : set(...args)) as typeof kv.set;
    await expect(installations.storeInstallation(installation())).rejects.toThrow(StoreUnavailableError);
    kv.set = set;
    await installations.storeInstallation(installation());
    expect((await readConnectionLog(store.scoped('T2'))).steward).toEqual({ userId: 'U2ANA', as: 'installer' });
  });

  it('keeps the latest changes only, and forgets them with the workspace', async () => {
    await installations.storeInstallation(installation());
    const scope = store.scoped('T2');
    for (let at = 0; at < 60; at++)
      await recordChange(scope, { change: 'changed', user: 'U2ANA', at, keyChanged: false });
    const { changes } = await readConnectionLog(scope);
    expect(changes).toHaveLength(50);
    expect(changes.at(-1)?.at).toBe(59);
    await installations.remove('T2');
    expect(await readConnectionLog(store.scoped('T2'))).toEqual({ changes: [] });
  });
});
