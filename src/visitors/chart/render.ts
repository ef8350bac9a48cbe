import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { TopLevelSpec } from 'vega-lite';
import { UTC } from '../../zone.js';
import { formatRange } from '../format.js';
import { chartCopy } from '../messages.js';
import type { Trend } from './trend.js';

/**
 * The trend chart: data → a Vega-Lite spec (pure, deterministic) → SVG (Vega, no browser) → PNG (resvg, Rust,
 * no system libraries). Text uses Inter, shipped as an npm package, so the picture is the same on every machine
 * and nothing is fetched at render time.
 */

const require = createRequire(import.meta.url);
export const FONT_FAMILY = 'Inter';
export const FONT_FILES = [
  require.resolve('@expo-google-fonts/inter/400Regular/Inter_400Regular.ttf'),
  require.resolve('@expo-google-fonts/inter/600SemiBold/Inter_600SemiBold.ttf'),
];

export const CHART_WIDTH = 720;
export const CHART_HEIGHT = 280;
/** Pixels per SVG unit: sharp on high-density screens. */
export const CHART_SCALE = 2;

/** Mid-tone colours that keep their contrast on Slack's white and on its dark background alike. */
export const SERIES = [
  { name: 'Total', color: '#4C8DF6' },
  { name: 'Human', color: '#22A66E' },
  { name: 'AI', color: '#E8912D' },
] as const;
const INK = '#7F7F7F';
const GRID = 'rgba(127,127,127,0.25)';

const UNIT = { day: 'day', week: 'week (from Monday)', month: 'month' } as const;

/** Fonts, axes and legend in the colours above. */
const CHART_CONFIG = {
  font: FONT_FAMILY,
  axis: {
    labelColor: INK,
    titleColor: INK,
    domainColor: INK,
    tickColor: INK,
    gridColor: GRID,
    labelFontSize: 12,
    titleFontSize: 12,
    titleFontWeight: 600,
  },
  legend: { labelColor: INK, labelFontSize: 12, symbolType: 'stroke', symbolStrokeWidth: 3 },
  view: { stroke: null },
} satisfies TopLevelSpec['config'];

/** The zone whose calendar days the buckets are (the asker's), as the report names it. */
const zoneOf = (trend: Trend) => trend.range.tz ?? UTC;

export function chartTitle(trend: Trend): string {
  const { from, to } = trend.range;
  return `Unique visitors per ${UNIT[trend.granularity]} · ${formatRange(from, to)} (${zoneOf(trend)})`;
}

/** The Vega-Lite spec for a trend. Same trend, same spec: no clock, no randomness. */
export function chartSpec(trend: Trend): TopLevelSpec {
  const values = trend.points.flatMap((point) =>
    point.counts
      ? SERIES.map(({ name }) => ({
          start: point.bucket.from,
          series: name,
          visitors: name === 'Total' ? point.counts?.total : name === 'Human' ? point.counts?.human : point.counts?.ai,
        }))
      : [],
  );
  const monthly = trend.granularity === 'month';
  const current = trend.points.some((p) => p.bucket.state === 'current');
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    width: CHART_WIDTH,
    height: CHART_HEIGHT,
    background: 'transparent', // Slack's own background shows through, in either theme
    padding: 12,
    title: {
      text: chartTitle(trend),
      ...(current && { subtitle: `The last ${trend.granularity} is still in progress.` }),
      anchor: 'start',
      color: INK,
      subtitleColor: INK,
      fontSize: 15,
      fontWeight: 600,
    },
    data: { values },
    mark: { type: 'line', point: { filled: true, size: 36 }, strokeWidth: 2.5, interpolate: 'monotone' },
    encoding: {
      x: {
        field: 'start',
        type: 'temporal',
        // Buckets are calendar dates (`YYYY-MM-DD`), read as UTC so that no zone shifts them; they are `zoneOf`'s days.
        timeUnit: monthly ? 'utcyearmonth' : 'utcyearmonthdate',
        title: chartCopy.xAxis(trend.granularity, zoneOf(trend)),
        axis: { format: monthly ? '%b %Y' : '%-d %b', labelAngle: 0, tickCount: Math.min(values.length / 3, 10) },
      },
      y: { field: 'visitors', type: 'quantitative', title: 'Unique visitors', axis: { format: '~s' } },
      color: {
        field: 'series',
        type: 'nominal',
        title: null,
        sort: SERIES.map((s) => s.name),
        scale: { domain: SERIES.map((s) => s.name), range: SERIES.map((s) => s.color) },
        legend: { orient: 'top', direction: 'horizontal' },
      },
    },
    config: CHART_CONFIG,
  };
}

/** The thread that draws (render-thread.ts, compiled; the TypeScript itself when running from source). */
const FROM_SOURCE = import.meta.url.endsWith('.ts');
const THREAD_URL = new URL(FROM_SOURCE ? './render-thread.ts' : './render-thread.js', import.meta.url);

function startThread(): Worker {
  if (!FROM_SOURCE) return new Worker(THREAD_URL);
  // Tests and `npm run dev`: a worker does not inherit tsx's loader, so the thread registers it before loading.
  const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  const boot = `import(${tsx}).then((tsx) => { tsx.register(); return import(${JSON.stringify(THREAD_URL.href)}); });`;
  return new Worker(boot, { eval: true });
}

interface Waiting {
  resolve: (png: Buffer) => void;
  reject: (error: Error) => void;
}
let thread: { worker: Worker; waiting: Map<number, Waiting> } | undefined;
let requests = 0;

/** The drawing thread, started on first use (Vega takes about a second to load) and again after it died. */
function drawingThread() {
  if (thread) return thread;
  const worker = startThread();
  const waiting = new Map<number, Waiting>();
  const current = { worker, waiting };
  worker.on('message', ({ id, png, error }: { id: number; png?: Uint8Array; error?: string }) => {
    const request = waiting.get(id);
    waiting.delete(id);
    if (waiting.size === 0) worker.unref(); // an idle thread does not keep the process alive
    if (png) request?.resolve(Buffer.from(png.buffer, png.byteOffset, png.byteLength));
    else request?.reject(new Error(error ?? 'the chart thread gave no picture'));
  });
  const fail = (error: Error) => {
    if (thread === current) thread = undefined;
    for (const request of waiting.values()) request.reject(error);
    waiting.clear();
  };
  worker.on('error', fail);
  worker.on('exit', (code) => fail(new Error(`the chart thread exited with code ${code}`)));
  thread = current;
  return current;
}

/**
 * Renders a spec to PNG bytes, `CHART_SCALE` times the spec's size, on a worker thread: a render is ~100 ms of CPU
 * in one synchronous call, and the thread that acknowledges Slack (one process, `ROLE=all`) must not wait for it.
 */
export function renderChart(spec: TopLevelSpec): Promise<Buffer> {
  const { worker, waiting } = drawingThread();
  const id = ++requests;
  worker.ref();
  return new Promise((resolve, reject) => {
    waiting.set(id, { resolve, reject });
    worker.postMessage({ id, spec });
  });
}
