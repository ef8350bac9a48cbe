/**
 * `npm run bench`: runs every benchmark in turn, prints a table per benchmark and writes bench/results.json.
 * Everything listens on 127.0.0.1; every loop is bounded in count and time.
 */
import { execSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type AckCell, type AckRole, runAck } from './ack.js';
import { runChartRender, runChartRequests } from './chart.js';
import { machine, round, table } from './lib/stats.js';
import { fmtS, runPollEconomy } from './poll-economy.js';
import { runScale, type ScaleRow } from './scale.js';
import { runSoak } from './soak.js';
import { runStart } from './start.js';
import { runTracking, type Scale, type TrackingResult } from './tracking.js';
import { runExport, runRender } from './visitors.js';

const SECTIONS = ['start', 'ack', 'tracking', 'soak', 'economy', 'visitors', 'chart', 'scale'];
const only = new Set(process.env.BENCH_ONLY?.split(',') ?? SECTIONS);
const started = Date.now();
const log = (line: string) => console.log(`[${round((Date.now() - started) / 1000, 0)}s] ${line}`);

const TEN_THOUSAND: Scale = {
  jobs: 10_000,
  store: 'memory',
  pollIntervalMs: 5_000,
  pollMaxIntervalMs: 60_000,
  steadyS: 8,
  windowS: 20,
  drainS: 45,
};

const SCALES: Scale[] = [
  { jobs: 100, store: 'memory', pollIntervalMs: 1_000, pollMaxIntervalMs: 5_000, steadyS: 8, windowS: 15, drainS: 15 },
  {
    jobs: 1_000,
    store: 'memory',
    pollIntervalMs: 5_000,
    pollMaxIntervalMs: 15_000,
    steadyS: 8,
    windowS: 20,
    drainS: 20,
  },
  TEN_THOUSAND,
  // Same load with V8's old space capped: RSS is mostly allocation churn, not retained jobs.
  { ...TEN_THOUSAND, nodeFlags: ['--max-old-space-size=128'] },
  {
    jobs: 1_000,
    store: 'redis',
    pollIntervalMs: 5_000,
    pollMaxIntervalMs: 15_000,
    steadyS: 8,
    windowS: 20,
    drainS: 20,
  },
];

const RESULTS = fileURLToPath(new URL('results.json', import.meta.url));
// With BENCH_ONLY, the sections not run keep their previous numbers.
const previous = process.env.BENCH_ONLY && existsSync(RESULTS) ? JSON.parse(readFileSync(RESULTS, 'utf8')) : {};
const git = (args: string) => {
  try {
    return execSync(`git ${args}`, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return 'unknown';
  }
};
// Others edit src/ while benchmarks run: record which code was measured.
const code = {
  commit: git('rev-parse --short HEAD'),
  modifiedInSrc: git('status --porcelain src').split('\n').filter(Boolean),
};
const here = machine();
const results: Record<string, unknown> = { ...previous, date: new Date().toISOString(), machine: here, code };
const sections: string[] = [];

if (only.has('start')) {
  const start = await runStart();
  results.start = start;
  sections.push(
    `npm start (median of ${start.runs}; before: prestart compiled every time)\n${table(
      ['compile (before, every start)', 'staleness check (after)', 'to config error', 'to ready'],
      [[`${start.compileMs} ms`, `${start.staleCheckMs} ms`, `${start.configErrorMs} ms`, `${start.readyMs} ms`]],
    )}`,
  );
}

if (only.has('economy')) {
  const economy = runPollEconomy();
  results.pollEconomy = economy;
  sections.push(
    `Poll economy: one ${economy.jobMinutes}-minute job, backoff ×${economy.backoffFactor}\n${table(
      [
        'min',
        'max',
        'polls/job',
        'interval at end',
        'expected delay (½ interval)',
        'delay if it ends at 30:00',
        'ramp to max',
      ],
      economy.rows.map((r) => [
        fmtS(r.minMs),
        fmtS(r.maxMs),
        r.pollsPerJob,
        fmtS(r.intervalAtEndMs),
        fmtS(r.expectedDelayMs),
        fmtS(r.delayAt30MinMs),
        fmtS(r.rampMs),
      ]),
    )}`,
  );
  log('poll economy done');
}

if (only.has('visitors')) {
  const render = runRender();
  log(`visitors render: ${render.rows} rows → ${render.blocks} blocks, p50 ${render.p50Ms} ms`);
  const exported = await runExport();
  log(`visitors export: ${exported.rows} rows in ${exported.medianMs} ms (median)`);
  results.visitors = { render, export: exported };
  sections.push(
    `Visitors\n${table(
      ['what', 'result'],
      [
        [
          `render ${render.rows}-row page (buildReport)`,
          `p50 ${render.p50Ms} ms, p99 ${render.p99Ms} ms, ${render.blocks} blocks`,
        ],
        [
          `export ${exported.rows} rows (exportVisitorsCsv)`,
          `median ${exported.medianMs} ms of [${exported.msRuns.join(', ')}] ms, ${exported.serviceRequests} service requests, ` +
            `${Object.values(exported.slackCalls).reduce((a, b) => a + b, 0)} Slack calls, CSV ${round(exported.csvBytes / 1024, 0)} KiB`,
        ],
      ],
    )}`,
  );
}

if (only.has('chart')) {
  const render = await runChartRender();
  log(`chart render: ${render.points} points, p50 ${render.p50Ms} ms`);
  const requests = await runChartRequests();
  results.chart = { render, requests };
  sections.push(
    `Visitors chart\n${table(
      ['what', 'result'],
      [
        [
          `render ${render.points} points (spec → Vega SVG → resvg PNG)`,
          `p50 ${render.p50Ms} ms, p99 ${render.p99Ms} ms over ${render.renders} renders, PNG ${render.pngKiB} KiB, ` +
            `RSS ${render.rssMb} MB (+${render.peakRssDeltaMb} MB peak while rendering)`,
        ],
        ...requests.map((r) => [
          `requests per chart, /visitors ${r.range} chart`,
          `cold ${r.cold} (${r.coldMs} ms incl. render), warm ${r.warm}`,
        ]),
      ],
    )}`,
  );
}

if (only.has('soak')) {
  const soak = runSoak();
  results.soak = soak;
  sections.push(
    `Memory store soak: ${soak.entries.toLocaleString('en-US')} dedupe claims + ${soak.entries.toLocaleString('en-US')} cache entries, 2 s TTL\n${table(
      ['heap MB before', 'filled', 'after expiry + sweep', 'claims left', 'cache hits after expiry'],
      [[soak.heapMb.before, soak.heapMb.filled, soak.heapMb.afterSweep, soak.claimsLeft, soak.cacheHitsAfterExpiry]],
    )}`,
  );
  log('soak done');
}

if (only.has('tracking')) {
  const tracking: TrackingResult[] = [];
  for (const scale of SCALES) tracking.push(await runTracking(scale, log));
  results.tracking = tracking;
  sections.push(
    `Tracking at scale\n${table(
      [
        'jobs',
        'store',
        'poll min/max',
        'conc.',
        'node flags',
        'RSS MB (base/steady/peak)',
        'polls/s',
        'CPU ms/poll',
        'store ops/poll',
        'posted',
        'dup',
        'delay p50/p99',
        'nominal interval',
        '≤ interval',
      ],
      tracking.map((t) => [
        t.jobs,
        t.store,
        `${fmtS(t.pollIntervalMs)}/${fmtS(t.pollMaxIntervalMs)}`,
        t.concurrency,
        t.nodeFlags,
        `${t.baselineRssMb}/${t.rssMb}/${t.peakRssMb}`,
        t.steady.pollsPerS,
        t.steady.cpuMsPerPoll,
        t.steady.storeOpsPerPoll,
        `${t.detection.posted}/${t.jobs}`,
        t.detection.duplicated,
        `${fmtS(t.detection.p50Ms)}/${fmtS(t.detection.p99Ms)}`,
        fmtS(t.detection.nominalIntervalP50Ms),
        `${t.detection.withinIntervalPct}%`,
      ]),
    )}`,
  );
}

if (only.has('scale')) {
  // BENCH_SCALE_JOBS=1000 for a quick look; 50,000 takes several minutes of setup alone.
  const jobCounts = (process.env.BENCH_SCALE_JOBS ?? '10000,50000').split(',').map(Number);
  const parts = (process.env.BENCH_SCALE_PARTS ?? 'capacity,demand,memory').split(',');
  const measured = await runScale(log, { jobCounts, parts });
  // A partial run (BENCH_SCALE_PARTS) replaces only the rows it measured.
  const kept = ((previous.scale ?? []) as ScaleRow[]).filter(
    (row) =>
      !measured.some(
        (m) => m.jobs === row.jobs && m.workers === row.workers && m.load === row.load && m.store === row.store,
      ),
  );
  const scale = [...kept, ...measured];
  results.scale = scale;
  sections.push(
    `Scale out on Redis (web + workers as processes)\n${table(
      [
        'jobs',
        'load',
        'workers',
        'RSS MB max worker (idle)',
        'anon MB max worker',
        'polls/s',
        'max share',
        'CPU ms/poll',
        'Redis cmds/poll',
        'double polls',
        'delay p50 (interval)',
        'pending/lost/dup of sample',
        's',
      ],
      scale.map((r: ScaleRow) => [
        r.jobs,
        r.load,
        r.workers,
        `${r.rssMbMaxWorker} (${r.idleRssMb})`,
        r.anonMbMaxWorker ?? '–',
        r.pollsPerSecond,
        r.maxWorkerShare,
        r.cpuMsPerPoll,
        r.redisCommandsPerPoll,
        r.doublePolls,
        `${fmtS(r.delayP50Ms)} (${fmtS(r.nominalIntervalMs)})`,
        `${r.pending ?? 0}/${r.lost}/${r.duplicated} of ${r.sample}`,
        r.seconds,
      ]),
    )}`,
  );
}

if (only.has('ack')) {
  const roles = (process.env.BENCH_ACK_ROLES ?? 'all,web').split(',') as AckRole[];
  const measured = await runAck(log, roles);
  // A partial run (BENCH_ACK_ROLES, BENCH_ACK_RATES) replaces only the cells it measured.
  const kept = ((previous.ack as { cells?: AckCell[] } | undefined)?.cells ?? []).filter(
    (c) => !measured.cells.some((m) => m.role === c.role && m.rate === c.rate && m.kind === c.kind),
  );
  const ack = { ...measured, cells: [...kept, ...measured.cells] };
  results.ack = ack;
  // Cells kept from a run before the verdict existed have no per-run p99s.
  const judged = ack.cells.filter((c: AckCell) => c.verdict);
  sections.push(
    `Ack latency (ms to Slack's 200; ${ack.runsPerVariantPerCell} × ${ack.runMs / 1000} s per variant per cell, interleaved AB BA AB; ` +
      `verdict: median run p99 ≤ max(1.2 × bare, bare + 2 ms))\n${table(
        [
          'role',
          'kind',
          'rate/s',
          'ours p50',
          'ours p99',
          'bare p50',
          'bare p99',
          'p99 ratio',
          'ours CPU ms/req',
          'failed o/b',
          'ours run p99s',
          'bare run p99s',
          'median o/b',
          'allowance',
          'verdict',
        ],
        ack.cells.map((c: AckCell) => [
          c.role,
          c.kind,
          c.rate,
          c.ours.p50Ms,
          c.ours.p99Ms,
          c.bare.p50Ms,
          c.bare.p99Ms,
          c.ratioP99,
          c.oursCpuMsPerRequest,
          `${c.ours.failed}/${c.bare.failed}`,
          c.runP99s?.ours.join(' ') ?? '—',
          c.runP99s?.bare.join(' ') ?? '—',
          c.verdict ? `${c.verdict.oursMs}/${c.verdict.bareMs}` : '—',
          c.verdict?.allowanceMs ?? '—',
          c.verdict ? (c.verdict.pass ? 'pass' : 'MISS') : '—',
        ]),
      )}\nVerdict: ${judged.filter((c: AckCell) => c.verdict.pass).length} of ${judged.length} cells pass.`,
  );
}

results.durationS = round((Date.now() - started) / 1000, 0);
// Which run measured each section: with BENCH_ONLY, kept sections keep their own date, commit and machine.
const measuredNow = { date: results.date, commit: code.commit, cpuModel: here.cpuModel };
results.measured = {
  ...(previous.measured ?? {}),
  ...Object.fromEntries([...only].filter((section) => SECTIONS.includes(section)).map((s) => [s, measuredNow])),
};
writeFileSync(RESULTS, `${JSON.stringify(results, null, 2)}\n`);
console.log(
  `\n${sections.join('\n\n')}\n\nCode ${code.commit}${code.modifiedInSrc.length ? ' + local changes in src' : ''}; total ${results.durationS} s; results in bench/results.json`,
);
process.exit(0);
