// Compiles src/ to dist/ only when a source file is newer than the last build, so `npm start` does not pay for a
// compile on every start (`npm ci` builds once through `prepare`). Plain JavaScript: it must run before any build.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const built = join(root, 'dist/index.js');
const newestSource = Math.max(
  ...['tsconfig.json', 'tsconfig.build.json'].map((f) => statSync(join(root, f)).mtimeMs),
  ...readdirSync(join(root, 'src'), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => statSync(join(entry.parentPath, entry.name)).mtimeMs),
);

if (!existsSync(built) || statSync(built).mtimeMs < newestSource) {
  process.stderr.write('src/ changed since the last build: compiling it once (npm run build)…\n');
  const tsc = join(root, 'node_modules/typescript/bin/tsc');
  const result = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
