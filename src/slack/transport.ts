import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { App, type Authorize, HTTPReceiver, SocketModeReceiver } from '@slack/bolt';
import type { Probes } from '../app/probes.js';
import type { Config } from '../config/config.js';
import { type Logger, toSlackLogger } from '../log.js';
import type { Metrics } from '../metrics.js';
import type { Claims } from '../store/claims.js';
import { slackClientOptions } from './client.js';
import { observeRequests } from './instrumentation.js';
import { refuseReplays, signatureOf } from './replays.js';
import { patientSocket } from './socket-mode.js';
import { DEFAULT_RETRY, type RetryOptions, untilAccepted } from './token-check.js';

export interface SlackTransportOptions {
  /** The address the HTTP receiver listens on; every interface when not given. */
  host?: string | undefined;
  metrics: Metrics;
  /** `/healthz` and `/metrics`: served by the HTTP receiver, or on a server of their own in Socket Mode. */
  probes: Probes;
  timeoutMs?: number;
  /** Backoff while Slack cannot be reached at start (tests shorten it). */
  retry?: RetryOptions;
  /** Called once the port is open (`/healthz` answers 503 until ready), before the tokens are checked. */
  onListening?: (port: number) => void;
  /** Many workspaces (OAuth mode): each request's installation, instead of the one bot token. */
  authorize?: Authorize<boolean> | undefined;
  /**
   * Where the signatures of the requests received over HTTP are claimed, so that one sent again is not run (none:
   * the benchmark's bare Bolt).
   */
  replays?: Pick<Claims, 'claim'>;
  /** One workspace: Slack refused the bot token, on any call of Bolt's clients (Slack's code). */
  tokenRefused?: ((code: string) => void) | undefined;
}

export interface SlackTransport {
  readonly bolt: App;
  /**
   * Opens the port, then waits until Slack accepts the bot token (and, in Socket Mode, the app token and its
   * connection). Resolves with the HTTP port; throws `TokenRefusedError` when Slack refuses a token for good.
   */
  start(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * The Bolt app and how Slack reaches it: HTTP (`POST /slack/events`) or Socket Mode when an app token is set, and
 * the one error handler. Features never learn which receiver runs. Bolt is initialised deferred so a refused or
 * unreachable token is seen before the app calls itself ready.
 */
export function createSlackTransport(config: Config, log: Logger, options: SlackTransportOptions): SlackTransport {
  const { slack } = config;
  const { metrics, probes } = options;
  const logger = toSlackLogger(log, config.logLevel);
  const retry = options.retry ?? DEFAULT_RETRY;
  const stopping = new AbortController();
  const socket = slack.appToken
    ? new SocketModeReceiver({
        appToken: slack.appToken,
        logger,
        // Reconnections are patientSocket's (socket-mode.ts): the SDK's wait 5 s, even when Slack asks for one.
        autoReconnectEnabled: false,
        // apps.connections.open goes to SLACK_API_URL too; every connection is retried patiently (socket-mode.ts).
        installerOptions: { clientOptions: { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } } },
      })
    : undefined;
  const http = socket
    ? undefined
    : new HTTPReceiver({
        signingSecret: slack.signingSecret ?? '',
        logger,
        customRoutes: probes.routes.map((route) => ({ ...route, method: ['GET'] })),
        customPropertiesExtractor: signatureOf,
      });
  if (http) refuseRequestsDatedAhead(http, log);
  const bolt = new App({
    ...(options.authorize ? { authorize: options.authorize } : { token: slack.botToken }),
    receiver: socket ?? http,
    logger,
    clientOptions: slackClientOptions(config, metrics, log, options.timeoutMs, options.tokenRefused),
    convoStore: false,
    deferInitialization: true,
    // The error handler gets the request's body too (slack/instrumentation.ts marks that request failed).
    extendedErrorHandler: true,
  });
  // First: its ack is the one a listener calls, so the signature is claimed once the timed ack was sent.
  if (options.replays) refuseReplays(bolt, options.replays, log);
  observeRequests(bolt, log, metrics);
  const connection = socket && patientSocket(socket, log, retry, stopping.signal);
  if (connection) probes.check('socket_mode', connection.connected);

  let server: Server | undefined;
  return {
    bolt,
    async start() {
      let port: number;
      if (http) {
        server = (await http.start(options.host ? { port: slack.port, host: options.host } : slack.port)) as Server;
        port = (server.address() as AddressInfo).port;
      } else {
        port = await probes.listen(slack.port);
      }
      options.onListening?.(port);
      await untilAccepted('SLACK_BOT_TOKEN', () => bolt.init(), log, retry, stopping.signal);
      if (socket) await socket.start();
      return port;
    },
    async stop() {
      stopping.abort();
      if (http && server?.listening) await http.stop();
      if (socket) {
        // closing on a stop: a socket that fails to close goes with the process.
        await socket.client.disconnect().catch(() => {});
        await probes.close();
      }
    },
  };
}

/** Slack's rule for a request's timestamp: within five minutes of the clock, either way. */
const SIGNED_WITHIN_SEC = 5 * 60;

/**
 * Bolt refuses a request signed over five minutes ago but not one dated later than now, which could be replayed
 * until that date passes: such a request is refused here, before Bolt reads it, as Bolt refuses a stale one (401).
 */
function refuseRequestsDatedAhead(receiver: HTTPReceiver, log: Logger): void {
  const listener = receiver.requestListener;
  receiver.requestListener = (req, res) => {
    const signedAt = Number(req.headers['x-slack-request-timestamp']);
    if (signedAt > Date.now() / 1000 + SIGNED_WITHIN_SEC) {
      log.warn('slack.request_refused', { reason: 'x-slack-request-timestamp is more than 5 minutes ahead' });
      res.writeHead(401).end();
      return;
    }
    listener(req, res);
  };
}
