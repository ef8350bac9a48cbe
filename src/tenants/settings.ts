import { keys } from '../store/keys.js';
import type { Store } from '../store/store.js';
import { type MintlifySettings, MintlifySettingsSchema, type PublicSettings } from './connection.js';
import type { SealedRecords } from './sealed.js';
import { fingerprint } from './secrets.js';

export function publicSettings({ apiKey, ...rest }: MintlifySettings): PublicSettings {
  return { ...rest, fingerprint: fingerprint(apiKey) };
}

export const readSettings = (records: SealedRecords) => records.get(keys.mintlifySettings(), MintlifySettingsSchema);

export const saveSettings = (records: SealedRecords, settings: MintlifySettings) =>
  records.set(keys.mintlifySettings(), MintlifySettingsSchema.parse(settings));

export const deleteSettings = (store: Pick<Store, 'kv'>) => store.kv.delete(keys.mintlifySettings());
