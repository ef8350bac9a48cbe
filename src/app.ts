import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import pLimit from 'p-limit';
import { registerAgent } from './agent/listeners.js';
import { createPoller, type PollerOptions } from './agent/poller.js';
import { createQuota } from './agent/quota.js';
import type { Config } from './config.js';
import { createJobWatchers, type Deps } from './deps.js';
import { registerHome } from './home/home.js';
import { createLogger, type Logger } from './log.js';
import { createMetrics } from './metrics.js';
import { createMintlifyClient } from './mintlify/client.js';
import { createProjects } from './projects.js';
import { createSlackApp } from './slack/app.js';
import type { RetryOptions } from './slack/token-check.js';
import { observedStore } from './store/observed.js';
import { createStore, type Store } from './store/store.js';
import { createDigestScheduler, type DigestSchedulerOptions } from './visitors/digest-scheduler.js';
import { registerVisitors } from './visitors/listeners.js';

/** Listener work in flight at once; more waits its turn (see `Deps.afterAck`). */
const AFTER_ACK_CONCURRENCY = 4;
/** Long work in flight at once (CSV exports), on its own queue so it never delays the interactive one. */
const BACKGROUND_CONCURRENCY = 2;
/** How long a graceful stop waits for acknowledged work; index.ts force-exits after 10 s in all. */
const DRAIN_TIMEOUT_MS = 8_000;

export interface RunningApp {
  /** The HTTP port Slack requests (and `/healthz`) are served on. */
  port: number;
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
  poller?: PollerOptions;
  /** The clock features read through `deps.now` (tests accelerate it). */
  now?: () => number;
  digest?: DigestSchedulerOptions;
}

/** Wires config → deps → Slack app + poller and starts them. The poller resumes jobs left active. */
export async function startApp(config: Config, options: StartOptions = {}): Promise<RunningApp> {
  const log = options.log ?? createLogger(config.logLevel);
  const metrics = createMetrics();
  const store = observedStore(
    options.store ??
      (await createStore({
        redisUrl: config.redisUrl,
        log,
        namespace: config.storeNamespace,
        legacyProject: config.mintlify.projectId,
      })),
    metrics.storeError,
  );
  const slackApp = createSlackApp(config, log, {
    ...(options.slackTimeoutMs && { timeoutMs: options.slackTimeoutMs }),
    ...(options.slackRetry && { retry: options.slackRetry }),
    ...(options.onListening && { onListening: options.onListening }),
    metrics,
  });
  const afterAck = pLimit(AFTER_ACK_CONCURRENCY);
  const background = pLimit(BACKGROUND_CONCURRENCY);
  const projects = createProjects(config);
  const deps: Deps = {
    config,
    log,
    metrics,
    store,
    projects,
    slack: slackApp.bolt.client,
    mintlify: createMintlifyClient({
      apiUrl: config.mintlify.apiUrl,
      keyFor: projects.keyFor,
      log,
      onResponse: metrics.serviceResponse,
      ...(options.mintlifyTimeoutMs && { timeoutMs: options.mintlifyTimeoutMs }),
    }),
    instanceId: randomUUID(),
    now: options.now ?? Date.now,
    afterAck,
    background,
    jobWatchers: createJobWatchers(log),
  };
  const poller = createPoller(deps, options.poller);
  const agent = { ...deps, poller, quota: createQuota(store) };
  registerAgent(slackApp.bolt, agent);
  registerHome(slackApp.bolt, agent);
  metrics.observe({
    trackedJobs: () => poller.size,
    quota: async () => {
      const kinds = ['create', 'follow_up'] as const;
      const pairs = projects.all.flatMap((project) => kinds.map((kind) => ({ project, kind })));
      return Promise.all(
        pairs.map(async (pair) => ({ ...pair, ...(await agent.quota.usage(pair.project, pair.kind)) })),
      );
    },
  });
  registerVisitors(slackApp.bolt, deps);

  let port: number;
  try {
    port = await slackApp.start();
  } catch (error) {
    // Slack refused a token (or the start was stopped): close what was opened so the process can exit.
    await slackApp.stop();
    await store.close();
    throw error;
  }
  const digests = createDigestScheduler(deps, options.digest);
  await poller.start();
  await digests.start();
  slackApp.setReady(true);
  log.info('app.started', { port, mode: config.slack.appToken ? 'socket' : 'http', store: store.kind });

  return {
    port,
    deps,
    async stop() {
      slackApp.setReady(false);
      await slackApp.stop();
      // Let acknowledged work finish (a job being started must get its binding) before the store closes.
      const deadline = Date.now() + DRAIN_TIMEOUT_MS;
      const busy = () =>
        afterAck.activeCount + afterAck.pendingCount + background.activeCount + background.pendingCount;
      while (busy() > 0 && Date.now() < deadline) await delay(50);
      await poller.stop();
      await digests.stop();
      await store.close();
      log.info('app.stopped');
    },
  };
}
