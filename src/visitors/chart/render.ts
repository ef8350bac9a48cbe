import { createRequire } from 'node:module';
import type { TopLevelSpec } from 'vega-lite';
import { formatRange } from '../format.js';
import type { Trend } from './trend.js';

/**
 * The trend chart: data → a Vega-Lite spec (pure, deterministic) → SVG (Vega, no browser) → PNG (resvg, Rust,
 * no system libraries). Text uses Inter, shipped as an npm package, so the picture is the same on every machine
 * and nothing is fetched at render time.
 */

const require = createRequire(import.meta.url);
const FONT_FAMILY = 'Inter';
const FONT_FILES = [
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

export function chartTitle(trend: Trend): string {
  return `Unique visitors per ${UNIT[trend.granularity]} · ${formatRange(trend.range.from, trend.range.to)} (UTC)`;
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
    background: null as unknown as string, // transparent: Slack's own background shows through in either theme
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
        timeUnit: monthly ? 'utcyearmonth' : 'utcyearmonthdate',
        title: monthly ? 'Month (UTC)' : trend.granularity === 'week' ? 'Week starting (UTC)' : 'Day (UTC)',
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

/**
 * Renders a spec to PNG bytes, `CHART_SCALE` times the spec's size. The renderers load on first use: Vega alone
 * takes about a second to import, which would otherwise slow every start-up.
 */
export async function renderChart(spec: TopLevelSpec): Promise<Buffer> {
  const [{ parse, View }, { compile }, { Resvg }] = await Promise.all([
    import('vega'),
    import('vega-lite'),
    import('@resvg/resvg-js'),
  ]);
  const view = new View(parse(compile(spec).spec), { renderer: 'none' });
  try {
    const svg = await view.toSVG();
    const png = new Resvg(svg, {
      font: { fontFiles: FONT_FILES, loadSystemFonts: false, defaultFontFamily: FONT_FAMILY },
      fitTo: { mode: 'zoom', value: CHART_SCALE },
    }).render();
    return png.asPng();
  } finally {
    view.finalize();
  }
}
