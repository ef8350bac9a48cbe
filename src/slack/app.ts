import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { App, type CustomRoute } from '@slack/bolt';
import type { Config } from '../config.js';
import { type Logger, toSlackLogger } from '../log.js';
import { createMetrics, type Metrics } from '../metrics.js';
import { observeRequests, observingFetch } from './observe.js';

/** Deadline of one Slack Web API call; shorter than the poster's claim (see agent/poster.ts). */
export const SLACK_TIMEOUT_MS = 10_000;

export interface SlackApp {
  readonly bolt: App;
  /** Starts the receiver; resolves with the HTTP port (the health port in Socket Mode). */
  start(): Promise<number>;
  stop(): Promise<void>;
  /** Marks the app ready: `/healthz` answers 200 from then on. */
  setReady(ready: boolean): void;
}

/**
 * The Bolt app and its transport: HTTP (`POST /slack/events`) or Socket Mode when an app token is set,
 * `/healthz` and `/metrics`, the Web API base URL and the one error handler. Features never learn which receiver runs.
 */
export function createSlackApp(
  config: Config,
  log: Logger,
  timeoutMs = SLACK_TIMEOUT_MS,
  metrics: Metrics = createMetrics(),
): SlackApp {
  let ready = false;
  const healthz: CustomRoute = {
    path: '/healthz',
    method: ['GET'],
    handler: (_req, res) => {
      res.writeHead(ready ? 200 : 503, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ok: ready }));
    },
  };
  const metricsRoute: CustomRoute = {
    path: '/metrics',
    method: ['GET'],
    handler: (_req, res) => {
      metrics.render().then(
        (text) => res.writeHead(200, { 'content-type': metrics.contentType }).end(text),
        (error: Error) => {
          log.error('metrics.render_failed', { error });
          res.writeHead(500).end();
        },
      );
    },
  };
  const { slack } = config;
  const socketMode = slack.appToken !== undefined;
  const bolt = new App({
    token: slack.botToken,
    logger: toSlackLogger(log, config.logLevel),
    clientOptions: {
      slackApiUrl: slack.apiUrl,
      // No automatic retries: a repeated chat.postMessage after a 5xx or a timeout posts twice (Slack often stored
      // the first). Callers own retrying (the poster, after reading the thread). A 429 is surfaced, not slept on
      // while a claim lapses, and every call has a deadline so a hung request cannot hold a poll slot or a stop.
      retryConfig: { retries: 0 },
      rejectRateLimitedCalls: true,
      timeout: timeoutMs,
      fetch: observingFetch(slack.apiUrl, metrics),
    },
    customRoutes: [healthz, metricsRoute],
    convoStore: false,
    ...(socketMode
      ? { socketMode: true, appToken: slack.appToken, installerOptions: { port: slack.port } }
      : { signingSecret: slack.signingSecret ?? '', port: slack.port }),
  });

  const requests = observeRequests(bolt, log, metrics);
  bolt.error(async (error) => {
    const { code, message, name } = error as Error & { code?: string };
    requests.failed();
    log.error('slack.listener_error', { name, code, error: message });
  });

  return {
    bolt,
    async start() {
      const server = (await bolt.start(slack.port)) as Server | undefined;
      const address = server?.address?.() as AddressInfo | null | undefined;
      return address?.port ?? slack.port;
    },
    async stop() {
      ready = false;
      await bolt.stop();
    },
    setReady(value) {
      ready = value;
    },
  };
}
