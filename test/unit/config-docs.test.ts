import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { EnvSchema } from '../../src/config/config.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const VARIABLE = /`([A-Z][A-Z0-9_]+)`/g;
const ENV_READ = /process\.env(?:\.([A-Z][A-Z0-9_]*)|\[\s*['"`]([A-Z][A-Z0-9_]*)['"`]\s*\])/g;

/** The rows of the reference's tables: the variables in the first cell, and the default cell. */
function documentedRows(): { names: string[]; defaultCell: string }[] {
  return read('docs/configuration.md')
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      const [, first = '', , defaultCell = ''] = line.split('|');
      return { names: [...first.matchAll(VARIABLE)].map((m) => m[1] as string), defaultCell };
    });
}

/** `process.env.NAME` and `process.env['NAME']` anywhere in src/: a read that bypasses the schema. */
function readOutsideSchema(): string[] {
  const files = readdirSync(join(ROOT, 'src'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
  const reads = files.flatMap((file) =>
    [...read(join('src', file)).matchAll(ENV_READ)].map((m) => (m[1] ?? m[2]) as string),
  );
  return [...new Set(reads)];
}

const schemaVariables = Object.keys(EnvSchema.shape);
const appReads = [...new Set([...schemaVariables, ...readOutsideSchema()])].sort();
const documented = documentedRows().flatMap((row) => row.names);

describe('docs/configuration.md', () => {
  it('finds the variables the app reads in the config schema', () => {
    expect(schemaVariables).toContain('SLACK_BOT_TOKEN');
    expect(schemaVariables.length).toBeGreaterThan(20);
  });

  it('documents every variable the app reads', () => {
    expect(appReads.filter((name) => !documented.includes(name))).toEqual([]);
  });

  it('documents no variable the app does not read, and each once', () => {
    expect(documented.filter((name) => !appReads.includes(name))).toEqual([]);
    expect(documented.filter((name, i) => documented.indexOf(name) !== i)).toEqual([]);
  });

  it('gives the default the schema applies, where it names one', () => {
    const stale = documentedRows().flatMap(({ names, defaultCell }) => {
      const stated = /`([^`]+)`/.exec(defaultCell)?.[1];
      if (stated === undefined) return [];
      return names.flatMap((name) => {
        const field = EnvSchema.shape[name as keyof typeof EnvSchema.shape];
        const applied = field?.safeParse(undefined);
        return applied?.success && String(applied.data) === stated ? [] : [`${name}: ${stated}`];
      });
    });
    expect(stale).toEqual([]);
  });
});
