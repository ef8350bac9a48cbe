import { existsSync } from 'node:fs';

/** Where Debian's `chromium` package (or CHROMIUM_PATH) puts the browser the end-to-end tests drive. */
const CANDIDATES = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter(
  (path): path is string => !!path,
);

export const chromiumPath = CANDIDATES.find((path) => existsSync(path));

/** In CI (CI=true) or with REQUIRE_BROWSER=1 a missing browser fails the run instead of skipping. */
const required = process.env.REQUIRE_BROWSER === '1' || process.env.CI === 'true';
if (!chromiumPath && required) {
  throw new Error(`Browser tests are required here (CI/REQUIRE_BROWSER) but no Chromium at ${CANDIDATES.join(', ')}`);
}
if (!chromiumPath) {
  console.warn(
    `[browser tests skipped] No Chromium at ${CANDIDATES.join(', ')}. Install it (apt-get install chromium) or set CHROMIUM_PATH.`,
  );
}
