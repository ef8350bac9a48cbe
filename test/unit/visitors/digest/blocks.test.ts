import { describe, expect, it } from 'vitest';
import { digestMessage } from '../../../../src/visitors/digest/blocks.js';
import { expectToContainAll } from '../../../support/expect.js';

const row = (path: string, total: number) => ({ path, total, human: total, ai: 0 });

describe('digestMessage', () => {
  const base = {
    cadence: 'weekly' as const,
    period: { from: '2026-11-16', to: '2026-11-22' },
    scheduleText: 'weekly on Monday at 09:00 UTC',
  };

  it('has totals with changes, top pages, movers and the schedule; says when the request cap was reached', () => {
    const message = digestMessage({
      ...base,
      current: { rows: [row('/a', 500), row('/b', 90)], totals: { human: 500, ai: 100, total: 550 }, complete: false },
      previous: { rows: [row('/a', 100), row('/b', 100)], totals: { human: 450, ai: 50, total: 500 }, complete: true },
    });
    const text = JSON.stringify(message.blocks);
    expectToContainAll(text, [
      'Weekly visitors digest · 16–22 Nov 2026',
      '*Total visitors*\\n550  ▲ 10.0 %',
      '1. `/a` 500  ▲ 400.0 %',
      '▲ `/a` +400 (100 → 500)',
      '▼ `/b` −10 (100 → 90)',
      'the digest stops at 4 requests per period',
      'Compared with 9–15 Nov 2026',
    ]);
    expect(message.text).toContain('550 visitors (▲ 10.0 %)');
  });

  it('has no cap note when both periods were read to the end', () => {
    const period = { rows: [row('/a', 1)], totals: { human: 1, ai: 0, total: 1 }, complete: true };
    expect(JSON.stringify(digestMessage({ ...base, current: period, previous: period }).blocks)).not.toContain(
      'stops at',
    );
  });
});
