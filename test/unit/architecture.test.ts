import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it, vi } from 'vitest';

// docs/ARCHITECTURE.md: a feature folder uses another feature only through that feature's `index.ts` (type imports
// too); the composition (src/app/) wires features from their own modules.

const SRC = resolve('src');
const FEATURES = ['agent', 'healing', 'home', 'insights', 'tenants', 'unfurls', 'visitors'];
/** Every relative module a file names: `import … from`, `export … from`, `import type`, and `import()`. */
const SPECIFIER = /(?:\bfrom\s+|\bimport\s*\(\s*|^\s*import\s+)['"](\.[^'"]+)['"]/gm;

/** Each static `import` statement (a side-effect import too) and the module it names, relative or a package. */
const STATIC_IMPORT = /^import\s[^;]*?['"]([^'"]+)['"]/gm;

const sources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );

/** `from → to` for each import of a feature's module other than its index.ts, from another feature's folder. */
function crossings(files: ReadonlyMap<string, string>): string[] {
  const found: string[] = [];
  for (const [file, text] of files) {
    const from = relative(SRC, file).split('/')[0] ?? '';
    if (!FEATURES.includes(from)) continue;
    for (const [, spec = ''] of text.matchAll(SPECIFIER)) {
      const target = relative(SRC, resolve(dirname(file), spec.replace(/\.js$/, '.ts')));
      const to = target.split('/')[0] ?? '';
      if (to !== from && FEATURES.includes(to) && target !== `${to}/index.ts`) {
        found.push(`${relative(SRC, file)} → ${target}`);
      }
    }
  }
  return found;
}

describe('feature folders', () => {
  it('import another feature only through its index.ts', () => {
    const files = new Map(sources(SRC).map((file) => [file, readFileSync(file, 'utf8')]));
    expect(files.size).toBeGreaterThan(200);
    expect(crossings(files)).toEqual([]);
  });

  it('are caught reaching past an index.ts, by a static, type, re-export or dynamic import', () => {
    const at = (path: string) => join(SRC, path);
    const files = new Map([
      [at('insights/a.ts'), "import { notice } from '../visitors/messages.js';"],
      [at('insights/b.ts'), "import type { Deps } from '../deps.js';\nimport type { X } from '../agent/requests.js';"],
      [at('unfurls/c.ts'), "export { draftButton } from '../insights/draft-button.js';"],
      [at('home/d.ts'), "const m = await import('../tenants/removal.js');"],
      [at('agent/e.ts'), "import { visitorsTasks } from '../visitors/index.js';\nimport { x } from './own.js';"],
      [at('app/f.ts'), "import { agentWork } from '../agent/agent-work.js';"],
    ]);
    expect(crossings(files)).toEqual([
      'insights/a.ts → visitors/messages.ts',
      'insights/b.ts → agent/requests.ts',
      'unfurls/c.ts → insights/draft-button.ts',
      'home/d.ts → tenants/removal.ts',
    ]);
  });
});

// docs/ARCHITECTURE.md "How tall it stands": src/ stands on at most 11 levels of runtime imports, counted by the
// command anyone can run (`node scripts/import-levels.mjs`), here run in this process on src/.
describe('the import structure of src/', () => {
  it('stands on at most 11 runtime levels with no upward arrow', async () => {
    const printed: string[] = [];
    const argv = process.argv;
    const log = vi.spyOn(console, 'log').mockImplementation((line: string) => void printed.push(line));
    process.argv = [argv[0] ?? 'node', 'import-levels.mjs', SRC];
    try {
      await import(pathToFileURL(resolve('scripts/import-levels.mjs')).href);
    } finally {
      process.argv = argv;
      log.mockRestore();
    }
    const [, modules, levels, upward] =
      /^(\d+) modules, (\d+) levels, (\d+) upward arrows/.exec(printed[0] ?? '') ?? [];
    expect(Number(modules)).toBeGreaterThan(200);
    expect(Number(levels)).toBeLessThanOrEqual(11);
    expect(Number(upward)).toBe(0);
  });

  it('sets the role’s heap flags before any other module of the app loads', () => {
    // V8 does not shrink a young generation that loading the app grew (heap-first.ts): the entry point imports
    // heap-first.ts first, and what that imports, to the last module, is node's own.
    const entry = readFileSync(join(SRC, 'index.ts'), 'utf8');
    const [first] = [...entry.matchAll(STATIC_IMPORT)].map(([, spec]) => spec);
    expect(first).toBe('./app/heap-first.js');
    const reached = new Set<string>();
    const visit = (file: string): void => {
      if (reached.has(file)) return;
      reached.add(file);
      for (const [line, spec = ''] of readFileSync(file, 'utf8').matchAll(STATIC_IMPORT)) {
        if (/^import\s+type\s/.test(line)) continue;
        if (spec.startsWith('.')) visit(resolve(dirname(file), spec.replace(/\.js$/, '.ts')));
        else expect(spec, `${relative(SRC, file)} loads a package`).toMatch(/^node:/);
      }
    };
    visit(join(SRC, 'app/heap-first.ts'));
    expect([...reached].map((file) => relative(SRC, file)).sort()).toEqual([
      'app/heap-first.ts',
      'app/heap-policy.ts',
      'config/env-file.ts',
    ]);
  });
});
