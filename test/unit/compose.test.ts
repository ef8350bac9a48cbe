import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const compose = readFileSync(new URL('../../docker-compose.yml', import.meta.url), 'utf8');

/** Each service's block of docker-compose.yml (the lines under `  name:` in `services:`), comments dropped. */
function services(): Map<string, string[]> {
  const body = compose.slice(compose.indexOf('\nservices:\n') + '\nservices:\n'.length).split('\n');
  const found = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const line of body) {
    if (/^\S/.test(line)) break; // the next top-level key
    const name = /^ {2}([\w-]+):\s*$/.exec(line)?.[1];
    if (name) {
      current = [];
      found.set(name, current);
    } else if (current && line.trim() && !line.trim().startsWith('#')) current.push(line.replace(/\s+#.*$/, ''));
  }
  return found;
}

/** The host ports a service publishes: `"3000:3000"` is one, `"3000-3001:3000"` is two. */
function publishedPorts(lines: string[]): number[] {
  const start = lines.findIndex((l) => /^ {4}ports:/.test(l));
  if (start < 0) return [];
  const ports: number[] = [];
  for (const line of lines.slice(start + 1)) {
    const item = /^ {6}- "?(?:[\d.]+:)?(\d+)(?:-(\d+))?:\d+"?$/.exec(line);
    if (!item) break;
    const from = Number(item[1]);
    for (let port = from; port <= Number(item[2] ?? from); port++) ports.push(port);
  }
  return ports;
}

describe('docker-compose.yml', () => {
  it('publishes one port, for the one Request URL HTTP mode gives Slack, in front of every web process', () => {
    const all = services();
    const published = [...all].filter(([, lines]) => publishedPorts(lines).length > 0);
    expect(published.map(([name, lines]) => [name, publishedPorts(lines)])).toEqual([['proxy', [3000]]]);
    const proxy = all.get('proxy')?.join('\n') ?? '';
    expect(proxy).toMatch(/depends_on:[\s\S]*\bweb\b/);
    // The proxy finds the web processes by their service name, every replica (Docker's DNS answers one A record each).
    expect(compose).toMatch(/dynamic a \{\s*name web\s*port 3000/);
    expect(all.get('web')?.join('\n')).toMatch(/replicas: 2/);
  });

  it('keeps the scaled-out topology: Redis, web and worker processes from the one image', () => {
    expect([...services().keys()].sort()).toEqual(['proxy', 'redis', 'web', 'worker']);
  });
});
