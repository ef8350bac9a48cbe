import { describe, expect, it } from 'vitest';
import { movers } from '../../../src/visitors/movers.js';

const row = (path: string, total: number) => ({ path, total, human: total, ai: 0 });

describe('movers', () => {
  it('ranks the biggest rises and falls, counting a page missing from a complete list as 0', () => {
    const { risers, fallers } = movers(
      { rows: [row('/a', 500), row('/b', 90), row('/new', 40), row('/same', 10)], complete: true },
      { rows: [row('/a', 100), row('/b', 100), row('/gone', 300), row('/same', 10)], complete: true },
    );
    expect(risers.map((m) => [m.path, m.delta])).toEqual([
      ['/a', 400],
      ['/new', 40],
    ]);
    expect(fallers.map((m) => [m.path, m.delta])).toEqual([
      ['/gone', -300],
      ['/b', -10],
    ]);
  });

  it('leaves out pages missing from a capped list: they may just rank lower', () => {
    const { risers, fallers } = movers(
      { rows: [row('/a', 500), row('/new', 40)], complete: false },
      { rows: [row('/a', 100), row('/gone', 300)], complete: false },
    );
    expect(risers.map((m) => m.path)).toEqual(['/a']);
    expect(fallers).toEqual([]);
  });
});
