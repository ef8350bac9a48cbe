import { parentPort } from 'node:worker_threads';
import type { TopLevelSpec } from 'vega-lite';
import { CHART_SCALE, FONT_FAMILY, FONT_FILES } from './render.js';

/**
 * The chart's drawing thread (started by `renderChart`): spec → SVG (Vega, no browser) → PNG (resvg). The renderers
 * load here on the first picture, never on the thread that acknowledges Slack.
 */
async function draw(spec: TopLevelSpec): Promise<Uint8Array> {
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

// Loaded outside a worker (check:dist loads every module), there is no port and nothing to do.
parentPort?.on('message', ({ id, spec }: { id: number; spec: TopLevelSpec }) => {
  draw(spec).then(
    // Copied, not transferred: resvg's PNG lives in memory Node 24 cannot transfer (DataCloneError), and a copy of
    // tens of KB is nothing beside the render.
    (png) => parentPort?.postMessage({ id, png }),
    (error: unknown) => parentPort?.postMessage({ id, error: String(error) }),
  );
});
