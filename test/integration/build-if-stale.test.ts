import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SCRIPT = fileURLToPath(new URL('../../scripts/build-if-stale.mjs', import.meta.url));

/**
 * A checkout of its own for `npm start`'s build step: src/, the tsconfigs, and a compiler that emits dist/ as tsc
 * does even on errors, and exits with `TSC_EXIT` (a pulled tsconfig naming a package `npm ci` has not installed yet).
 */
function checkout(): { root: string; start: (tscExit: number) => { status: number | null; compiles: number } } {
  const root = mkdtempSync(join(tmpdir(), 'build-if-stale-'));
  mkdirSync(join(root, 'scripts'));
  copyFileSync(SCRIPT, join(root, 'scripts/build-if-stale.mjs'));
  mkdirSync(join(root, 'src'));
  writeFileSync(join(root, 'src/index.ts'), 'export {};\n');
  for (const file of ['tsconfig.json', 'tsconfig.build.json', 'package-lock.json'])
    writeFileSync(join(root, file), '{}');
  mkdirSync(join(root, 'node_modules/typescript/bin'), { recursive: true });
  writeFileSync(
    join(root, 'node_modules/typescript/bin/tsc'),
    `const fs = require('node:fs'), path = require('node:path');
const root = path.resolve(__dirname, '../../..');
fs.mkdirSync(path.join(root, 'dist'), { recursive: true });
fs.writeFileSync(path.join(root, 'dist/index.js'), '');
fs.appendFileSync(path.join(root, 'compiles'), 'x');
process.exit(Number(process.env.TSC_EXIT));
`,
  );
  writeFileSync(join(root, 'node_modules/typescript/package.json'), '{"type":"commonjs"}');
  const start = (tscExit: number) => {
    const run = spawnSync(process.execPath, [join(root, 'scripts/build-if-stale.mjs')], {
      env: { PATH: process.env.PATH ?? '', TSC_EXIT: String(tscExit) },
      encoding: 'utf8',
    });
    const compiles = existsSync(join(root, 'compiles')) ? readFileSync(join(root, 'compiles'), 'utf8').length : 0;
    return { status: run.status, compiles };
  };
  return { root, start };
}

describe("npm start's build step", () => {
  it('a compile that fails leaves no dist/ behind: the next start compiles again instead of running it', () => {
    const { root, start } = checkout();
    expect(start(2)).toEqual({ status: 2, compiles: 1 });
    expect(existsSync(join(root, 'dist'))).toBe(false);
    expect(start(0)).toEqual({ status: 0, compiles: 2 });
    expect(start(0)).toEqual({ status: 0, compiles: 2 }); // fresh: no compile
  });

  it('compiles again after `npm ci` changed the dependencies (package-lock.json newer than dist/)', () => {
    const { root, start } = checkout();
    expect(start(0)).toEqual({ status: 0, compiles: 1 });
    const later = new Date(Date.now() + 5_000);
    utimesSync(join(root, 'package-lock.json'), later, later);
    expect(start(0)).toEqual({ status: 0, compiles: 2 });
  });
});
