import type { PageVisitors, VisitorCounts, VisitorsResponse } from './contract.js';

export const DAY_MS = 86_400_000;
// Data only exists for these UTC days (end exclusive).
const FIRST_DAY = Date.UTC(2024, 0, 1) / DAY_MS;
const END_DAY = Date.UTC(2027, 0, 1) / DAY_MS;
const CACHE_SIZE = 32;

const NAMED_PATHS = [
  '/',
  '/quickstart',
  '/installation',
  '/authentication',
  '/concepts/overview',
  '/guides/getting-started',
  '/guides/deployment',
  '/guides/webhooks',
  '/sdks/node',
  '/sdks/python',
  '/api-reference/introduction',
  '/changelog',
];

interface RangeRows {
  rows: PageVisitors[];
  totals: VisitorCounts;
}

/** Deterministic per-path, per-day visitor counts; each (path, day) count comes from a seeded hash. */
export class VisitorsDataSet {
  readonly #paths: { path: string; hash: number; weight: number; aiShare: number }[];
  readonly #seed: number;
  readonly #cache = new Map<string, RangeRows>();

  constructor(pathCount: number, seed: number) {
    this.#seed = fmix(seed ^ 0x5bd1e995);
    this.#paths = Array.from({ length: pathCount }, (_, index) => {
      const path = NAMED_PATHS[index] ?? `/api-reference/endpoint-${index - NAMED_PATHS.length + 1}`;
      const hash = fmix(hashString(path) ^ this.#seed);
      return {
        path,
        hash,
        weight: 2000 / (index + 1) ** 0.8,
        aiShare: 0.05 + (hash % 1000) / 1800,
      };
    });
  }

  /** One page of rows for the instants [fromMs, toMs): a day counts when its UTC midnight is in the range. */
  page(fromMs: number, toMs: number, limit: number, offset: number): VisitorsResponse {
    const { rows, totals } = this.#range(
      Math.max(FIRST_DAY, Math.ceil(fromMs / DAY_MS)),
      Math.min(END_DAY, Math.ceil(toMs / DAY_MS)),
    );
    const visitors = rows.slice(offset, offset + limit);
    return { totals, visitors, hasMore: offset + visitors.length < rows.length };
  }

  #range(firstDay: number, endDay: number): RangeRows {
    const key = `${firstDay}:${endDay}`;
    const cached = this.#cache.get(key);
    if (cached) {
      // Re-insert to keep the Map ordered by last use.
      this.#cache.delete(key);
      this.#cache.set(key, cached);
      return cached;
    }
    const computed = this.#compute(firstDay, endDay);
    this.#cache.set(key, computed);
    if (this.#cache.size > CACHE_SIZE) {
      const oldest = this.#cache.keys().next().value;
      if (oldest !== undefined) this.#cache.delete(oldest);
    }
    return computed;
  }

  #compute(firstDay: number, endDay: number): RangeRows {
    const rangeKey = fmix(Math.imul(firstDay, 31) + endDay);
    const rows: PageVisitors[] = [];
    let human = 0;
    let ai = 0;
    for (const page of this.#paths) {
      let pageHuman = 0;
      let pageAi = 0;
      for (let day = firstDay; day < endDay; day++) {
        const r = fmix(page.hash ^ fmix(day + this.#seed));
        // More zero days for less popular pages.
        if ((r & 1023) < 1024 / (1 + page.weight)) continue;
        const weekday = (day + 4) % 7; // 1970-01-01 was a Thursday
        const weekly = weekday === 0 || weekday === 6 ? 0.6 : 1;
        const noise = 0.5 + ((r >>> 10) & 1023) / 1024;
        const dayHuman = Math.floor(page.weight * weekly * noise);
        pageHuman += dayHuman;
        pageAi += Math.floor(dayHuman * page.aiShare * (0.5 + (r >>> 22) / 1024));
      }
      if (pageHuman + pageAi === 0) continue;
      rows.push({
        path: page.path,
        human: pageHuman,
        ai: pageAi,
        total: combine(pageHuman, pageAi, page.hash ^ rangeKey),
      });
      human += pageHuman;
      ai += pageAi;
    }
    rows.sort((a, b) => b.total - a.total || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    return { rows, totals: { human, ai, total: combine(human, ai, this.#seed ^ rangeKey) } };
  }
}

/** Visitors seen as both human and AI are counted once: max(human, ai) ≤ total ≤ human + ai. */
function combine(human: number, ai: number, key: number): number {
  const overlapShare = (fmix(key) % 301) / 1000;
  return human + ai - Math.floor(Math.min(human, ai) * overlapShare);
}

export function hashString(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

/** MurmurHash3 finalizer. */
export function fmix(value: number): number {
  let h = value | 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
