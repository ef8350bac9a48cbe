import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { transformSync } from 'esbuild';
import { START_FLAGS } from '../../src/app/heap-policy.js';
import type { Role } from '../../src/config/config.js';
import { type Child, startChild } from './rpc.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
let outDir: string | undefined;

const compiled = new Map<string, string>();

/**
 * A bench child script (and the bench modules it imports) as plain JavaScript that loads the app from the built
 * `dist/`, as production's `node dist/index.js` does: no tsx loader, no on-the-fly transform, no source of src/ in
 * memory. The app is built first if src/ changed since the last build. Returns the script's path.
 */
function compileForDist(script: string, benchModules: string[] = ['lib/rpc.ts']): string {
  const done = compiled.get(script);
  if (done) return done;
  if (!outDir) {
    const built = spawnSync(process.execPath, [join(root, 'scripts/build-if-stale.mjs')], { stdio: 'inherit' });
    if (built.status !== 0) throw new Error('npm run build failed');
    outDir = mkdtempSync(join(tmpdir(), 'bench-dist-'));
  }
  const dist = pathToFileURL(join(root, 'dist')).href;
  for (const file of [script, ...benchModules]) {
    const source = readFileSync(join(root, 'bench', file), 'utf8');
    // TypeScript 7 has no transpileModule; esbuild (tsx's transformer) strips the types, imports kept as written.
    const { code: outputText } = transformSync(source, {
      loader: 'ts',
      format: 'esm',
      target: 'es2022',
      tsconfigRaw: { compilerOptions: { verbatimModuleSyntax: true } },
    });
    const out = join(outDir, file.replace(/\.ts$/, '.js'));
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, outputText.replaceAll(/(from |import\(|import )(['"])\.\.\/src\//g, `$1$2${dist}/`));
  }
  const path = join(outDir, script.replace(/\.ts$/, '.js'));
  compiled.set(script, path);
  return path;
}

/**
 * The app under test (`target.ts`) in a process of its own, run from `dist/` with `role`'s start flags on node's
 * command line (so `target.ts`, which sets the heap policy first as `src/index.ts` does, does not restart it) and the
 * heap policy of `role` (the bare app: `web`). `extraFlags` come after them, so they win. Its standard output (the
 * app's log, and what V8's trace flags print) goes nowhere, or to `stdoutFile`.
 */
export function startAppProcess(role: Role, extraFlags: string[] = [], stdoutFile?: string): Child {
  return startChild(compileForDist('target.ts'), { ROLE: role }, [...START_FLAGS[role], ...extraFlags], stdoutFile);
}
