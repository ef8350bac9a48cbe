/** Benchmark 5: the trend chart: render time and memory for 31 points, and service requests per chart cold and warm. */

import { makeChart } from '../src/visitors/chart/deliver.js';
import { chartSpec, renderChart } from '../src/visitors/chart/render.js';
import { parseVisitorsCommand } from '../src/visitors/date-range.js';
import { sampleTrend } from './chart-sample.js';
import { percentile, round } from './lib/stats.js';
import { startVisitorsDeps } from './lib/visitors-deps.js';

const RENDERS = 30;
const MB = 1024 * 1024;

export async function runChartRender() {
  const trend = sampleTrend({ from: '2026-10-23', to: '2026-11-22' });
  const spec = chartSpec(trend);
  for (let i = 0; i < 3; i++) await renderChart(spec); // warm up (JIT, font loading)
  const rssBefore = process.memoryUsage().rss;
  let peakRss = rssBefore;
  const times: number[] = [];
  let bytes = 0;
  for (let i = 0; i < RENDERS; i++) {
    const started = performance.now();
    bytes = (await renderChart(chartSpec(trend))).length;
    times.push(performance.now() - started);
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }
  return {
    points: trend.points.length,
    renders: RENDERS,
    p50Ms: round(percentile(times, 50), 1),
    p99Ms: round(percentile(times, 99), 1),
    pngKiB: round(bytes / 1024, 0),
    rssMb: round(rssBefore / MB, 0),
    peakRssDeltaMb: round((peakRss - rssBefore) / MB, 1),
  };
}

/** Requests the app makes for one chart of each range: cold (empty cache), then the same chart again (warm). */
export async function runChartRequests() {
  const { deps, config, sim, store, close } = await startVisitorsDeps(300);
  const rows: { range: string; cold: number; warm: number; coldMs: number }[] = [];
  try {
    for (const range of ['14d', '31d', '90d', '366d']) {
      const parsed = parseVisitorsCommand(range, Date.now());
      if (parsed.kind !== 'report') throw new Error(`could not parse ${range}`);
      const count = async () => {
        const before = sim.counts().visitors;
        const started = performance.now();
        const made = await makeChart(deps, config.mintlify.projectId, parsed.query);
        if (!made.ok) throw new Error(`chart failed: ${made.failure.code}`);
        return { requests: sim.counts().visitors - before, ms: performance.now() - started };
      };
      await store.kv.clear(); // cold: nothing cached from the previous range
      const cold = await count();
      const warm = await count();
      rows.push({ range, cold: cold.requests, warm: warm.requests, coldMs: round(cold.ms, 0) });
    }
    return rows;
  } finally {
    await close();
  }
}
