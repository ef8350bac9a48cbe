import { describe, expect, it } from 'vitest';
import { chartSpec, renderChart } from '../../../../src/visitors/chart/render.js';
import type { Trend } from '../../../../src/visitors/chart/trend.js';
import { dayNumber } from '../../../../src/visitors/days.js';
import { buckets } from '../../../../src/visitors/periods.js';

function trend(from: string, to: string, today: string, tz?: string): Trend {
  const all = buckets({ from, to }, dayNumber(today) ?? 0);
  return {
    range: { from, to, ...(tz && { tz }) },
    granularity: all.granularity,
    points: all.buckets.map((bucket, i) =>
      bucket.state === 'future' ? { bucket } : { bucket, counts: { human: 100 + i, ai: 20 + i, total: 110 + 2 * i } },
    ),
  };
}

describe('chartSpec', () => {
  it('has a point per series per started bucket, in UTC, with axis titles and a legend', () => {
    const spec = chartSpec(trend('2026-11-09', '2026-11-24', '2026-11-22')) as unknown as Record<string, unknown>;
    const values = (spec.data as { values: { start: string; series: string; visitors: number }[] }).values;
    expect(values).toHaveLength(14 * 3); // 16 days, the last two still to come
    expect(values.slice(0, 3)).toEqual([
      { start: '2026-11-09', series: 'Total', visitors: 110 },
      { start: '2026-11-09', series: 'Human', visitors: 100 },
      { start: '2026-11-09', series: 'AI', visitors: 20 },
    ]);
    const encoding = spec.encoding as Record<string, Record<string, unknown>>;
    expect(encoding.x?.timeUnit).toBe('utcyearmonthdate');
    expect(encoding.x?.title).toBe('Day (UTC)');
    expect(encoding.y?.title).toBe('Unique visitors');
    expect((encoding.color?.legend as object | undefined) ?? null).not.toBeNull();
    expect(JSON.stringify(spec.title)).toContain('Unique visitors per day · 9–24 Nov 2026 (UTC)');
    expect(JSON.stringify(spec.title)).toContain('still in progress');
  });

  it('names the zone whose days it shows: the person’s, not UTC', () => {
    const xTitle = (spec: unknown) => (spec as { encoding: { x: { title: string } } }).encoding.x.title;
    const spec = chartSpec(trend('2026-11-09', '2026-11-24', '2026-11-22', 'Pacific/Auckland'));
    expect(xTitle(spec)).toBe('Day (Pacific/Auckland)');
    expect(JSON.stringify(spec.title)).toContain('Unique visitors per day · 9–24 Nov 2026 (Pacific/Auckland)');
    expect(JSON.stringify(spec)).not.toContain('UTC)');
    const weekly = chartSpec(trend('2026-09-07', '2026-11-22', '2026-11-22', 'America/Los_Angeles'));
    expect(xTitle(weekly)).toBe('Week starting (America/Los_Angeles)');
  });

  it('is deterministic: the same data gives the same spec', () => {
    const a = chartSpec(trend('2026-01-01', '2026-11-22', '2026-11-22'));
    const b = chartSpec(trend('2026-01-01', '2026-11-22', '2026-11-22'));
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    expect((a as { encoding: { x: { timeUnit: string } } }).encoding.x.timeUnit).toBe('utcyearmonth');
  });
});

describe('renderChart', () => {
  it('renders a PNG of the expected size that decodes and is not blank', async () => {
    const png = await renderChart(chartSpec(trend('2026-10-23', '2026-11-22', '2026-11-22')));
    expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
    // Decode it back (resvg reads PNGs in <image>) and check its size and that it has drawn pixels.
    const { Resvg } = await import('@resvg/resvg-js');
    const width = png.readUInt32BE(16);
    const height = png.readUInt32BE(20);
    expect(width).toBeGreaterThan(1400);
    expect(width).toBeLessThan(1800);
    expect(height).toBeGreaterThan(600);
    expect(height).toBeLessThan(1000);
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="${width}" height="${height}"><image width="${width}" height="${height}" xlink:href="data:image/png;base64,${png.toString('base64')}"/></svg>`;
    const pixels = new Resvg(svg).render().pixels;
    expect(pixels.length).toBe(width * height * 4);
    let drawn = 0;
    for (let i = 3; i < pixels.length; i += 4) if ((pixels[i] ?? 0) > 0) drawn++;
    // Lines, points, labels: a few percent of the picture, far from empty and far from a filled box.
    expect(drawn / (width * height)).toBeGreaterThan(0.01);
    expect(drawn / (width * height)).toBeLessThan(0.5);
  });
});

describe('renderChart off the event loop', () => {
  it('renders on a worker thread: the calling thread keeps answering (no stall near a render’s CPU time)', async () => {
    const spec = chartSpec(trend('2025-11-23', '2026-11-22', '2026-11-22'));
    await renderChart(spec); // the renderers load once (about a second of CPU on the thread that renders)
    let longestStall = 0;
    let last = performance.now();
    const tick = () => {
      const now = performance.now();
      longestStall = Math.max(longestStall, now - last);
      last = now;
    };
    const ticker = setInterval(tick, 2);
    const started = performance.now();
    try {
      for (let i = 0; i < 4; i++) await renderChart(spec);
    } finally {
      clearInterval(ticker);
    }
    tick(); // the stall up to the end counts too
    const perRender = (performance.now() - started) / 4;
    // Rendered here, each render would stall this thread for about its whole duration (one synchronous resvg call).
    expect(perRender).toBeGreaterThan(40);
    expect(longestStall).toBeLessThan(perRender / 2);
  });

  it('a spec the thread cannot draw fails that render only: the next one is drawn', async () => {
    const broken = { mark: 'no-such-mark', data: { values: [] } } as unknown as Parameters<typeof renderChart>[0];
    await expect(renderChart(broken)).rejects.toThrow(/TypeError/);
    const png = await renderChart(chartSpec(trend('2026-11-01', '2026-11-22', '2026-11-22')));
    expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
  });
});
