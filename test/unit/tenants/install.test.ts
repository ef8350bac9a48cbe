import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BOT_SCOPES } from '../../../src/tenants/install.js';

const manifest = readFileSync(new URL('../../../manifest.yml', import.meta.url), 'utf8');

/** The list under `key:` in the manifest's YAML (`- item` lines, comments skipped). */
function listUnder(key: string): string[] {
  const start = manifest.indexOf(`${key}:\n`);
  const lines = manifest.slice(start).split('\n').slice(1);
  const items: string[] = [];
  for (const line of lines) {
    if (/^\s*#/.test(line)) continue;
    const item = /^\s*- ([\w:.]+)\s*$/.exec(line);
    if (!item) break;
    items.push(item[1] ?? '');
  }
  return items;
}

describe('the installer and the manifest', () => {
  it('asks for exactly the manifest’s bot scopes', () => {
    expect(listUnder('    bot').length).toBeGreaterThan(5);
    expect(BOT_SCOPES).toEqual(listUnder('    bot'));
  });

  it('subscribes the events that say the app was removed', () => {
    expect(listUnder('    bot_events')).toEqual(expect.arrayContaining(['app_uninstalled', 'tokens_revoked']));
  });
});
