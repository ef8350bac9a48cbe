import { once } from 'node:events';
import type { WebClient } from '@slack/web-api';
import { agentWork } from '../agent/agent-work.js';
import { resumeEarlierStart, startJob } from '../agent/start-job.js';
import type { Config } from '../config/config.js';
import { createProjects } from '../config/projects.js';
import { recordServedProjects } from '../config/served-projects.js';
import type { Deps } from '../deps.js';
import { DIGEST_KINDS } from '../digests.js';
import { startHealing } from '../healing/start.js';
import { homeWork } from '../home/home-work.js';
import { insightsWork } from '../insights/insights-work.js';
import { laneDefinitions } from '../lanes.js';
import { configuredSecrets, createLogger, type Logger } from '../log.js';
import { createMetrics, type Metrics } from '../metrics.js';
import type { Engine, UnstartedJob } from '../queue/engine.js';
import { createQueueMetrics } from '../queue/queue-metrics.js';
import { createSlackClient } from '../slack/client.js';
import { DEFAULT_RETRY, type RetryOptions, untilAccepted } from '../slack/token-check.js';
import type { SlackTransport } from '../slack/transport.js';
import { watchStoreHealth } from '../store/health.js';
import { type StoreLoss, watchStoreLoss } from '../store/loss.js';
import type { Store } from '../store/store.js';
import type { RunnableTask } from '../task.js';
import { finishRotation } from '../tenants/rotation.js';
import { digestMachinery } from '../visitors/digest/machinery.js';
import { adoptDigests } from '../visitors/digest/scheduler.js';
import { visitorsWork } from '../visitors/visitors-work.js';
import { servedDeps } from '../workspace.js';
import { answerUnstarted, type Work } from './dispatch.js';
import { type Installs, installsOf } from './installs.js';
import { openEngine, openStore } from './open.js';
import { createProbes, type Probes } from './probes.js';
import { closeWithin, STOP_DEADLINE_MS } from './stopping.js';
import { type AppIdentity, identityOf } from './uninstall.js';
import { buildDeps } from './wiring.js';
import { adoptTrackedJobs, startWorkers } from './workers.js';

/**
 * Every kind of work a door hands on, by its kind: each feature declares its own tasks and what runs them (and
 * /insights' digest gets the visitors' digest machinery here). Composed at the top, beside the dispatch and the
 * workers rather than under them, so neither stands on the features' work.
 */
export const WORK: Work = new Map(
  [...agentWork, ...homeWork, ...insightsWork(digestMachinery, { startJob, resumeEarlierStart }), ...visitorsWork].map(
    (task: RunnableTask) => [task.kind, task],
  ),
);

/** After a failed start, what was opened gets this long to close before the error is reported. */
const START_FAILURE_CLOSE_MS = 900;

export interface RunningApp {
  /** The public HTTP port: Slack's requests (web, all over HTTP) and `/healthz`. */
  port: number;
  /** The operator's port (METRICS_PORT): `/metrics` and the detailed `/healthz`. */
  metricsPort: number;
  deps: Deps;
  stop(): Promise<void>;
}

export interface StartOptions {
  log?: Logger;
  /** A store opened by the caller (benchmarks wrap one to count its calls); the app closes it on stop. */
  store?: Store;
  mintlifyTimeoutMs?: number;
  /** Deadline of one Slack Web API call (tests shorten it). */
  slackTimeoutMs?: number;
  /** Backoff while Slack is unreachable at start, and a hook once the port is open (tests use both). */
  slackRetry?: RetryOptions;
  onListening?: (port: number) => void;
  /** A stop asked for while starting: the start closes what it opened (within the stop deadline) and rejects. */
  stop?: AbortSignal;
  /** The clock features read through `deps.now` (tests accelerate it). */
  now?: () => number;
  digestEveryMs?: number;
  /** The tracking lanes' first retry wait (tests shorten it: `lanes.ts`). */
  retryDelayMs?: number;
  /** The address every port listens on (the playground's 127.0.0.1); every interface when not given. */
  host?: string;
}

/** Wires config → deps → the role's parts (Slack's doors, the workers, or both) and starts them. */
export async function startApp(config: Config, options: StartOptions = {}): Promise<RunningApp> {
  const log = (options.log ?? createLogger(config.logLevel)).hiding(configuredSecrets(config));
  const metrics = createMetrics({ projectLabels: !config.oauth });
  const store = await openStore(config, options, log, metrics);
  const queueMetrics = createQueueMetrics(metrics.registry);
  const engine = await openEngine(config, log, queueMetrics.observer).catch(async (error: unknown) => {
    await store.close();
    throw error;
  });
  queueMetrics.track(engine);
  const probes = createProbes(log, metrics, options.host);
  const watched = await watchStore(store, log, metrics, probes);
  const installs = await installsOf(config, { store, log, metrics, slackTimeoutMs: options.slackTimeoutMs }, probes);
  const { many, installState } = installs;
  const { doors, transport, slack } = await slackSide(config, options, installs, { log, metrics, probes, store });
  // Aborted when a graceful stop begins: long work (an export) answers then instead of being cut off.
  const stopping = new AbortController();
  const formerProjects = many ? undefined : await servedBefore(config, store, log, options.now ?? Date.now);
  const parts = { log, metrics, store, slack, engine, tenancy: many?.tenancy, installed: installState?.installed };
  const more = { work: WORK, storeLoss: watched.loss, stopping: stopping.signal, formerProjects };
  const deps = buildDeps(config, options, { ...parts, ...more });
  metrics.observe(observed(deps, engine));
  const removals = installs.removals(deps, engine);
  if (transport) doors?.registerDoors(transport, deps, installs, removals);
  if (config.role !== 'web') startWorkers(engine, deps, WORK, laneDefinitions(options.retryDelayMs));

  const unstarted = (jobs: readonly UnstartedJob[]) => answerUnstarted(deps, WORK, jobs);
  const timers = [watched, ...(installState ? [installState] : []), ...(many ? [many.sealing] : [])];
  const opened = { timers, engine, store, unstarted };
  const closeAll = (deadline: number) =>
    closeWithin({ ...opened, receivers: [transport, { stop: probes.close }] }, deadline);
  // Slack refused a token, or a stop came before Slack answered: close what was opened, for a second at most (a stop:
  // its own deadline), so the process exits within a second of Slack's answer whatever is still open.
  const started = async () =>
    [
      await probes.listenOperator(config.metricsPort),
      await unlessStopped(listen(config, options, { transport, probes, slack, log }), options.stop),
    ] as const;
  const [metricsPort, { port, identity }] = await started().catch(async (error) => {
    await closeAll(Date.now() + (options.stop?.aborted ? STOP_DEADLINE_MS : START_FAILURE_CLOSE_MS));
    throw error;
  });
  await installState?.accepted(identity); // Slack accepted the token: the app is installed (again)
  if (config.role !== 'web') startBackground(deps, engine, installs, watched.loss);
  probes.setReady(true);
  log.info('app.started', {
    port,
    metrics_port: metricsPort,
    role: config.role,
    mode: receiveMode(config),
    store: store.kind,
    queue: engine.kind,
  });
  return {
    port,
    metricsPort,
    deps,
    async stop() {
      const deadline = Date.now() + STOP_DEADLINE_MS;
      probes.setReady(false);
      stopping.abort();
      await closeAll(deadline);
      log.info('app.stopped');
    },
  };
}

/** Slack's side of the role: Bolt and the doors where Slack's requests arrive, and the app's Web API client. */
async function slackSide(
  config: Config,
  options: StartOptions,
  { many, tokenRefused }: Installs,
  parts: { log: Logger; metrics: Metrics; probes: Probes; store: Store },
) {
  // Bolt and the doors load only where Slack's requests arrive: a worker never holds them.
  const doors = config.role !== 'worker' ? await import('./receiver.js') : undefined;
  const transport = doors?.transportFor(config, options, { ...parts, many, tokenRefused });
  const { metrics, log } = parts;
  const timeoutMs = options.slackTimeoutMs;
  const slack = transport?.bolt.client ?? createSlackClient(config, metrics, log, timeoutMs, undefined, tokenRefused);
  return { doors, transport, slack };
}

/**
 * The one workspace's projects taken out of the configuration since an earlier start: a reply in a job's thread of
 * one is told so. A store that does not answer leaves none known (such a reply is then not answered).
 */
async function servedBefore(config: Config, store: Store, log: Logger, now: () => number): Promise<string[]> {
  return recordServedProjects(store, createProjects(config).all, now()).catch((error: unknown) => {
    log.warn('store.unavailable', { op: 'projects.served', error });
    return [];
  });
}

/** Whether the store answers (`/healthz`) and whether it lost its data, watched until the app stops. */
async function watchStore(store: Store, log: Logger, metrics: Metrics, probes: Probes) {
  const health = watchStoreHealth(store, log);
  probes.check('store', health.healthy);
  const loss = watchStoreLoss(store, { log, metrics });
  await loss.start().catch((error: unknown) => log.warn('store.unavailable', { op: 'store.marker', error }));
  return {
    loss,
    stop() {
      health.stop();
      loss.stop();
    },
  };
}

/**
 * The worker's own start, in the background: digest subscriptions of an earlier release get their schedulers, jobs
 * it tracked are adopted (one workspace), secrets an earlier encryption key sealed are sealed again (many), and
 * what a loss of the store took is rebuilt from Slack and the service (`healing/`).
 */
function startBackground(deps: Deps, engine: Engine, { many }: Installs, loss: StoreLoss): void {
  const failed = (event: string) => (error: unknown) => deps.log.error(event, { error });
  const adopted = async () => adoptDigests(engine, await servedDeps(deps, await deps.workspaces.all()), DIGEST_KINDS);
  void adopted()
    .then((digests) => deps.log.info('visitors.digests_adopted', { digests }))
    .catch(failed('visitors.digest_adopt_failed'));
  const previousKeys = deps.config.oauth?.previousEncryptionKeys.length ?? 0;
  if (many) void finishRotation(deps.store, many.tenancy, deps.log, previousKeys).catch(failed('secrets.check_failed'));
  else void adoptTrackedJobs(deps).catch(failed('tracking.adopt_failed'));
  startHealing(deps, engine, loss, digestMachinery);
}

/**
 * Opens the port and waits until Slack accepts the bot token (the transport also checks the app token and connects
 * in Socket Mode). A worker receives nothing from Slack: it serves `/healthz` and checks its token.
 */
async function listen(
  config: Config,
  options: StartOptions,
  parts: { transport?: SlackTransport | undefined; probes: Probes; slack: WebClient; log: Logger },
): Promise<{ port: number; identity?: AppIdentity }> {
  let port: number;
  if (parts.transport) port = await parts.transport.start();
  else {
    port = await parts.probes.listen(config.slack.port);
    options.onListening?.(port);
  }
  if (config.oauth) return { port }; // each workspace's token is checked by its own calls
  // Who the app is in its workspace: a removal Slack sends is believed only for it (removal.ts).
  const retry = options.slackRetry ?? DEFAULT_RETRY;
  const signal = new AbortController().signal;
  const answer = await untilAccepted('SLACK_BOT_TOKEN', () => parts.slack.auth.test(), parts.log, retry, signal);
  return { port, identity: identityOf(answer) };
}

/** `work`, or the stop's reason as soon as `stop` aborts (what `work` still waits for is left to the close). */
async function unlessStopped<T>(work: Promise<T>, stop: AbortSignal | undefined): Promise<T> {
  if (!stop) return work;
  stop.throwIfAborted();
  work.catch(() => {}); // abandoned on a stop: its late failure (a refused or aborted call) is no longer news
  const stopped = once(stop, 'abort').then(() => Promise.reject(stop.reason as Error));
  return Promise.race([work, stopped]);
}

function observed(deps: Deps, engine: Engine) {
  const { projects, quota } = deps;
  return {
    trackedJobs: async () => {
      const counts = await engine.counts('polls');
      return counts.waiting + counts.delayed + counts.active;
    },
    quota: async () => {
      const kinds = ['create', 'follow_up'] as const;
      const pairs = projects.all.flatMap((project) => kinds.map((kind) => ({ project, kind })));
      return Promise.all(pairs.map(async (pair) => ({ ...pair, ...(await quota.usage(pair.project, pair.kind)) })));
    },
  };
}

const receiveMode = (config: Config) => (config.role === 'worker' ? 'none' : config.slack.appToken ? 'socket' : 'http');
