// Proves the image's contents: dist/ holds only the app (no stand-in, simulator or playground) and every module in
// it loads with production dependencies alone, as `npm ci --omit=dev` installs them in the Dockerfile's runtime stage.
// Run by .ci/run after the build (`npm run check:dist`); uses npm's cache, so it needs no network once `npm ci` ran.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const TOOLING = /(^|\/)(slack-standin|simulator|playground)(\/|$)/;
const fail = (message) => {
  process.stderr.write(`check-dist: ${message}\n`);
  process.exit(1);
};

const modules = readdirSync(join(root, 'dist'), { recursive: true, withFileTypes: true })
  .filter((entry) => entry.isFile() && entry.name.endsWith('.js'))
  .map((entry) => relative(join(root, 'dist'), join(entry.parentPath, entry.name)));
const tooling = modules.filter((path) => TOOLING.test(path));
if (tooling.length > 0) fail(`dist/ contains tooling: ${tooling.join(', ')}`);

const dir = mkdtempSync(join(tmpdir(), 'mintlify-slack-dist-'));
try {
  for (const file of ['package.json', 'package-lock.json']) cpSync(join(root, file), join(dir, file));
  cpSync(join(root, 'dist'), join(dir, 'dist'), { recursive: true });
  const npm = spawnSync(
    'npm',
    ['ci', '--omit=dev', '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'],
    { cwd: dir, stdio: 'inherit' },
  );
  if (npm.status !== 0) fail('npm ci --omit=dev failed');

  // The entry point starts the app, so it runs in a child with no configuration: it must load and refuse to start.
  const entry = spawnSync(process.execPath, ['dist/index.js'], {
    cwd: dir,
    env: { PATH: process.env.PATH },
    encoding: 'utf8',
  });
  if (entry.status !== 78 || !entry.stderr.includes('Invalid configuration')) {
    fail(`dist/index.js did not load and report its configuration (exit ${entry.status}):\n${entry.stderr}`);
  }
  for (const path of modules.filter((p) => p !== 'index.js')) {
    await import(pathToFileURL(join(dir, 'dist', path)).href).catch((error) => fail(`dist/${path}: ${error.message}`));
  }
  process.stdout.write(`check-dist: ${modules.length} modules load with production dependencies only, no tooling\n`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
