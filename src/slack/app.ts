import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { App, HTTPReceiver, SocketModeReceiver } from '@slack/bolt';
import type { Config } from '../config.js';
import { type Logger, toSlackLogger } from '../log.js';
import { createMetrics, type Metrics } from '../metrics.js';
import { observeRequests, observingFetch } from './observe.js';
import { DEFAULT_RETRY, type RetryOptions, untilAccepted } from './token-check.js';

/** Deadline of one Slack Web API call; shorter than the poster's claim (see agent/poster.ts). */
export const SLACK_TIMEOUT_MS = 10_000;

export interface SlackAppOptions {
  timeoutMs?: number;
  /** Backoff while Slack cannot be reached at start (tests shorten it). */
  retry?: RetryOptions;
  /** Called once the port is open (`/healthz` answers 503 until ready), before the tokens are checked. */
  onListening?: (port: number) => void;
  /** Where `/metrics` reads from and Slack requests and Web API errors are counted. */
  metrics?: Metrics;
}

export interface SlackApp {
  readonly bolt: App;
  /**
   * Opens the port, then waits until Slack accepts the bot token (and, in Socket Mode, the app token and its
   * connection). Resolves with the HTTP port; throws `TokenRefusedError` when Slack refuses a token for good.
   */
  start(): Promise<number>;
  stop(): Promise<void>;
  /** Marks the app ready: `/healthz` answers 200 from then on (in Socket Mode, while connected). */
  setReady(ready: boolean): void;
}

/**
 * The Bolt app and its transport: HTTP (`POST /slack/events`) or Socket Mode when an app token is set,
 * `/healthz` and `/metrics`, the Web API base URL and the one error handler. Features never learn which receiver runs.
 * Bolt is initialised deferred so a refused or unreachable token is seen before the app calls itself ready.
 */
export function createSlackApp(config: Config, log: Logger, options: SlackAppOptions = {}): SlackApp {
  let ready = false;
  let connected = true;
  const healthz = (_req: IncomingMessage, res: ServerResponse) => {
    const ok = ready && connected;
    res.writeHead(ok ? 200 : 503, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ok }));
  };
  const metrics = options.metrics ?? createMetrics();
  const metricsEndpoint = (_req: IncomingMessage, res: ServerResponse) => {
    metrics.render().then(
      (text) => res.writeHead(200, { 'content-type': metrics.contentType }).end(text),
      (error: Error) => {
        log.error('metrics.render_failed', { error });
        res.writeHead(500).end();
      },
    );
  };
  const { slack } = config;
  const logger = toSlackLogger(log, config.logLevel);
  const clientOptions = {
    slackApiUrl: slack.apiUrl,
    // No automatic retries: a repeated chat.postMessage after a 5xx or a timeout posts twice (Slack often stored
    // the first). Callers own retrying (the poster, after reading the thread). A 429 is surfaced, not slept on
    // while a claim lapses, and every call has a deadline so a hung request cannot hold a poll slot or a stop.
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    timeout: options.timeoutMs ?? SLACK_TIMEOUT_MS,
    fetch: observingFetch(slack.apiUrl, metrics),
  };
  const socket = slack.appToken
    ? new SocketModeReceiver({
        appToken: slack.appToken,
        logger,
        // apps.connections.open goes to SLACK_API_URL too; the first connection is retried by `start` below.
        installerOptions: { clientOptions: { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } } },
      })
    : undefined;
  const http = socket
    ? undefined
    : new HTTPReceiver({
        signingSecret: slack.signingSecret ?? '',
        logger,
        customRoutes: [
          { path: '/healthz', method: ['GET'], handler: healthz },
          { path: '/metrics', method: ['GET'], handler: metricsEndpoint },
        ],
      });
  // In Socket Mode nothing else listens on the port: /healthz and /metrics get a server of their own.
  const routes: Record<string, typeof healthz> = { '/healthz': healthz, '/metrics': metricsEndpoint };
  const healthServer = socket ? createServer((req, res) => (routes[req.url ?? ''] ?? notFound)(req, res)) : undefined;
  const bolt = new App({
    token: slack.botToken,
    receiver: socket ?? http,
    logger,
    clientOptions,
    convoStore: false,
    deferInitialization: true,
  });

  const requests = observeRequests(bolt, log, metrics);
  bolt.error(async (error) => {
    const { code, message, name } = error as Error & { code?: string };
    requests.failed();
    log.error('slack.listener_error', { name, code, error: message });
  });

  const stopping = new AbortController();
  const retry = options.retry ?? DEFAULT_RETRY;

  if (socket) {
    // The SDK reconnects after a drop by calling `start` again, and gives up for good (an unhandled rejection) when
    // Slack cannot be reached at that moment. Every connection, the first and each reconnection, goes through the
    // same patient loop instead: backoff and a log line per try, a refused token named.
    const connectOnce = socket.client.start.bind(socket.client);
    socket.client.start = () => untilAccepted('SLACK_APP_TOKEN', connectOnce, log, retry, stopping.signal);
    socket.client.on('connected', () => {
      connected = true;
    });
    for (const state of ['close', 'reconnecting', 'disconnected']) {
      socket.client.on(state, () => {
        connected = false;
        if (ready) log.warn('slack.socket_disconnected', { state });
      });
    }
  }

  let server: Server | undefined;

  return {
    bolt,
    async start() {
      if (http) {
        server = (await http.start(slack.port)) as Server;
      } else if (healthServer) {
        healthServer.listen(slack.port);
        await once(healthServer, 'listening');
        server = healthServer;
      }
      const port = (server?.address() as AddressInfo | null)?.port ?? slack.port;
      options.onListening?.(port);
      await untilAccepted('SLACK_BOT_TOKEN', () => bolt.init(), log, retry, stopping.signal);
      if (socket) {
        connected = false;
        await socket.start();
        connected = true;
      }
      return port;
    },
    async stop() {
      ready = false;
      stopping.abort();
      if (http && server?.listening) await http.stop();
      if (socket) {
        await socket.client.disconnect().catch(() => {});
        if (healthServer?.listening) {
          healthServer.closeAllConnections();
          await new Promise((resolve) => healthServer.close(resolve));
        }
      }
    },
    setReady(value) {
      ready = value;
    },
  };
}

function notFound(_req: IncomingMessage, res: ServerResponse): void {
  res.writeHead(404).end();
}
