// Compiles src/ to a fresh dist/ only when a source file (or folder: a deleted file changes it), a tsconfig or the
// installed dependencies (package-lock.json, which `npm ci` follows) are newer than the last build, so `npm start`
// does not pay for a compile on every start (`npm ci` builds once through `prepare`). `--always` compiles regardless
// (`npm run build`). Plain JavaScript: it must run before any build.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');
const built = join(dist, 'index.js');
const newestSource = Math.max(
  ...['tsconfig.json', 'tsconfig.build.json', 'package-lock.json', 'src'].map((f) => statSync(join(root, f)).mtimeMs),
  ...readdirSync(join(root, 'src'), { recursive: true, withFileTypes: true }).map(
    (entry) => statSync(join(entry.parentPath, entry.name)).mtimeMs,
  ),
);
const always = process.argv.includes('--always');

if (always || !existsSync(built) || statSync(built).mtimeMs < newestSource) {
  if (!always)
    process.stderr.write('src/ or its dependencies changed since the last build: compiling it once (npm run build)…\n');
  // A fresh dist/: a module deleted or moved out of src/ must not linger in it (or in the image).
  rmSync(dist, { recursive: true, force: true });
  const tsc = join(root, 'node_modules/typescript/bin/tsc');
  const result = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
  if (result.status !== 0) {
    // tsc emits even when it fails: what it left must not pass for a build at the next start.
    rmSync(dist, { recursive: true, force: true });
    process.exit(result.status ?? 1);
  }
}
