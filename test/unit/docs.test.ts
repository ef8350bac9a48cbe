import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const README_MAX_BYTES = 16 * 1024;
const PAGES = readdirSync(join(ROOT, 'docs'))
  .filter((name) => name.endsWith('.md'))
  .map((name) => `docs/${name}`);

/** The text outside fenced code blocks, where links and headings live. */
const prose = (markdown: string) => markdown.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, '');

/** Relative link targets (`[text](target)`, images too), each resolved from the repository root. */
function relativeLinks(path: string): { target: string; file: string; anchor: string | undefined }[] {
  const text = prose(read(path)).replace(/`[^`\n]*`/g, 'code');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1] as string)
    .filter((target) => !/^[a-z]+:/.test(target))
    .map((target) => {
      const [file = '', anchor] = target.split('#');
      return { target, file: file ? normalize(join(dirname(path), file)) : path, anchor };
    });
}

/** The anchors GitHub gives a page's headings (github-slugger: lower case, punctuation dropped, spaces to dashes). */
function anchorsOf(path: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const [, heading = ''] of prose(read(path)).matchAll(/^#{1,6} (.+)$/gm)) {
    const text = heading.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
    const base = text
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count ? `${base}-${count}` : base);
  }
  return anchors;
}

/** The items of a block list in manifest.yml (`key:` then `- item` lines, comments skipped). */
function manifestList(key: string): string[] {
  const lines = read('manifest.yml').split('\n');
  const items: string[] = [];
  for (const line of lines.slice(lines.findIndex((l) => l.trim() === `${key}:`) + 1)) {
    if (line.trim().startsWith('#')) continue;
    const item = /^\s+- (\S+)\s*$/.exec(line)?.[1];
    if (!item) break;
    items.push(item);
  }
  return items;
}

describe('README.md', () => {
  it(`is a landing page of at most ${README_MAX_BYTES / 1024} KB`, () => {
    expect(Buffer.byteLength(read('README.md'))).toBeLessThanOrEqual(README_MAX_BYTES);
  });

  it('links every page of docs/', () => {
    const linked = new Set(relativeLinks('README.md').map((link) => link.file));
    expect(PAGES.length).toBeGreaterThanOrEqual(6);
    expect(PAGES.filter((page) => !linked.has(page))).toEqual([]);
  });

  it('keeps the test command CI runs, and how to run one file', () => {
    const readme = read('README.md');
    expect(readme).toMatch(/^npm test\b/m);
    expect(readme).toMatch(/npx vitest run test\/\S+\.test\.ts/);
  });
});

describe('links in README.md and docs/', () => {
  it.each(['README.md', ...PAGES])('%s: every relative link reaches a file, and its anchor a heading', (path) => {
    const broken = relativeLinks(path).filter(({ file, anchor }) => {
      if (!existsSync(join(ROOT, file))) return true;
      return anchor !== undefined && file.endsWith('.md') && !anchorsOf(file).has(anchor);
    });
    expect(broken.map((link) => link.target)).toEqual([]);
  });
});

/** The TypeScript files under a folder of the repository, as paths from its root. */
const under = (dir: string) =>
  readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts') && !name.includes('node_modules'))
    .map((name) => join(dir, name));

/** Files outside the docs that send a reader to them: the app's own messages, comments, the deployment files. */
function pointingFiles(): string[] {
  return [
    ...['src', 'test', 'tools', 'bench'].flatMap(under),
    ...['Dockerfile', 'docker-compose.yml', '.env.example', 'manifest.yml', '.ci/run'],
  ];
}

describe('pointers into the docs from code and deployment files', () => {
  it('name a page of docs/ that exists, and a heading it has', () => {
    const broken = pointingFiles().flatMap((path) =>
      [...read(path).matchAll(/docs\/([\w-]+\.md)(?:#([\w-]+))?/g)]
        .filter(([, page = '', anchor]) => {
          const file = `docs/${page}`;
          return !existsSync(join(ROOT, file)) || (anchor !== undefined && !anchorsOf(file).has(anchor));
        })
        .map(([pointer]) => `${path}: ${pointer}`),
    );
    expect(broken).toEqual([]);
  });

  it('name no README section the README no longer has', () => {
    const headings = [...prose(read('README.md')).matchAll(/^#{1,6} (.+)$/gm)].map((m) => m[1]);
    const broken = pointingFiles().flatMap((path) =>
      [...read(path).matchAll(/README(?:,? section)?[,:]? (?:"([^"]+)"|([A-Z][\w ]+))/g)]
        .filter(([, quoted, bare]) => !headings.includes(quoted ?? bare))
        .map(([pointer]) => `${path}: ${pointer}`),
    );
    expect(broken).toEqual([]);
  });
});

/** Every lane of the work engine, as `src/` defines them (`defineLane({ name: '…' })`). */
function lanes(): string[] {
  return under('src').flatMap((file) =>
    [...read(file).matchAll(/defineLane\(\{\s*name: '([\w-]+)'/g)].map((m) => m[1] as string),
  );
}

describe('the lists of lanes in the docs', () => {
  it.each([
    ['docs/operating.md', '### The queues'],
    ['docs/operating.md', 'The work engine adds, per lane'],
    ['docs/ARCHITECTURE.md', '| **lane**'],
  ])('%s, "%s", names every lane', (path, marker) => {
    const text = read(path);
    const start = text.indexOf(marker);
    const paragraph = text.slice(start, text.indexOf('\n\n', start + marker.length + 2));
    expect(start).toBeGreaterThanOrEqual(0);
    expect(lanes().length).toBeGreaterThanOrEqual(5);
    expect(lanes().filter((lane) => !paragraph.includes(`\`${lane}\``))).toEqual([]);
  });
});

describe('docs/setup.md, "Slack app manifest"', () => {
  it('says why each scope and event of manifest.yml is there', () => {
    const setup = read('docs/setup.md');
    const table = setup.slice(setup.indexOf('## Slack app manifest'));
    const entries = [...manifestList('bot'), ...manifestList('bot_events')];
    expect(entries).toContain('chat:write');
    expect(entries).toContain('app_mention');
    expect(entries.filter((entry) => !table.includes(`\`${entry}\``))).toEqual([]);
  });

  it('names each slash command of manifest.yml in its commands row, and each has its page in the README', () => {
    const commands = [...read('manifest.yml').matchAll(/^\s+- command: (\/\S+)$/gm)].map((match) => match[1]);
    expect(commands).toEqual(['/agent', '/visitors', '/insights']);
    const row =
      read('docs/setup.md')
        .split('\n')
        .find((line) => line.startsWith('| `commands` |')) ?? '';
    expect(commands.filter((command) => !row.includes(`\`${command}\``))).toEqual([]);
    expect(commands.filter((command) => !read('README.md').includes(`| \`${command} `))).toEqual([]);
  });
});
