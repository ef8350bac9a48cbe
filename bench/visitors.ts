/** Benchmark 4: rendering a 250-row report page, and exporting 20,000 rows through the export function. */
import { VISITORS_MAX_LIMIT } from '../src/mintlify/schemas.js';
import { buildReport } from '../src/visitors/blocks.js';
import { parseVisitorsCommand, type ReportQuery } from '../src/visitors/date-range.js';
import { exportVisitorsCsv } from '../src/visitors/export.js';
import { VisitorsDataSet } from '../tools/simulator/visitors-data.js';
import { percentile, round } from './lib/stats.js';
import { startVisitorsDeps } from './lib/visitors-deps.js';

const RENDER_ITERATIONS = 2_000;
const EXPORT_ROWS = 20_000;
const EXPORT_REPEATS = 3;

function lastDays(days: number): ReportQuery {
  const parsed = parseVisitorsCommand(`${days}d`, Date.now());
  if (parsed.kind !== 'report') throw new Error(`could not parse ${days}d`);
  return { ...parsed.query, limit: VISITORS_MAX_LIMIT, offset: 0 };
}

export function runRender() {
  const query = lastDays(30);
  const data = new VisitorsDataSet(1_000, 1);
  const response = data.page(Date.parse(query.from), Date.parse(query.to) + 86_400_000, VISITORS_MAX_LIMIT, 0);
  const page = { query, response, fetchedAt: Date.now() };
  for (let i = 0; i < 200; i++) buildReport(page); // warm up
  const times: number[] = [];
  let blocks = 0;
  for (let i = 0; i < RENDER_ITERATIONS; i++) {
    const started = performance.now();
    blocks = buildReport(page).blocks?.length ?? 0;
    times.push(performance.now() - started);
  }
  return {
    rows: response.visitors.length,
    blocks,
    iterations: RENDER_ITERATIONS,
    p50Ms: round(percentile(times, 50), 3),
    p99Ms: round(percentile(times, 99), 3),
  };
}

export async function runExport() {
  const { deps, config, slack, sim, close } = await startVisitorsDeps(EXPORT_ROWS);
  // Long enough that every one of the 20,000 paths has visitors in the range.
  const query = lastDays(180);
  const runs: { ms: number; rows: number; serviceRequests: number; slackCalls: Record<string, number> }[] = [];
  try {
    for (let i = 0; i < EXPORT_REPEATS; i++) {
      slack.reset();
      const before = sim.counts().visitors;
      const started = performance.now();
      const result = await exportVisitorsCsv(deps, {
        query,
        project: config.mintlify.projectId,
        audience: { channel: 'C123DOCS', userId: 'U123ALICE' },
      });
      const ms = performance.now() - started;
      if (!result.ok) throw new Error(`export failed: ${result.reason}`);
      const slackCalls: Record<string, number> = {};
      for (const call of slack.calls) slackCalls[call.method] = (slackCalls[call.method] ?? 0) + 1;
      runs.push({ ms: round(ms, 0), rows: result.rows, serviceRequests: sim.counts().visitors - before, slackCalls });
    }
    const upload = slack.calls.find((c) => c.method === 'file_upload');
    const last = runs[runs.length - 1];
    return {
      rows: last?.rows ?? 0,
      msRuns: runs.map((r) => r.ms),
      medianMs: percentile(
        runs.map((r) => r.ms),
        50,
      ),
      serviceRequests: last?.serviceRequests ?? 0,
      slackCalls: last?.slackCalls ?? {},
      csvBytes: Buffer.byteLength(String(upload?.args.content ?? '')),
    };
  } finally {
    await close();
  }
}
