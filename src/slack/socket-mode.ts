import { setTimeout as delay } from 'node:timers/promises';
import type { SocketModeReceiver } from '@slack/bolt';
import type { Logger } from '../log.js';
import { type RetryOptions, untilAccepted } from './token-check.js';

/** Slack's `disconnect` message when Socket Mode is turned off in the app's settings. */
const LINK_DISABLED = 'link_disabled';
const DISCONNECT = /"type"\s*:\s*"disconnect"/;

/**
 * Every connection, the first and each reconnection, goes through one patient loop (the SDK's own reconnection is
 * off, the receiver being made with `autoReconnectEnabled: false`): backoff and a log line per try, a refused token
 * named. The SDK would wait 5 s before reconnecting, even when Slack asked for it (`warning`, `refresh_requested`,
 * every few hours), leaving commands without a connection meanwhile (`dispatch_failed`), and would retry for ever in
 * silence when Socket Mode was turned off (`link_disabled`). A connection Slack asked to renew or that dropped is
 * opened again at once; after `link_disabled` an error says what to do and the app asks again only at the longest
 * backoff. `connected` follows the socket, so `/healthz` says 503 while it is down.
 */
export function patientSocket(
  socket: SocketModeReceiver,
  log: Logger,
  retry: RetryOptions,
  signal: AbortSignal,
): { connected(): boolean } {
  const { client } = socket;
  let connected = false;
  /** Why Slack closed the connection, from its `disconnect` message. */
  let reason: string | undefined;
  let disabledSaid = false;

  const connectOnce = client.start.bind(client);
  type Opened = Awaited<ReturnType<typeof connectOnce>>;
  let connecting: Promise<Opened> | undefined;
  const attempt = async (): Promise<Opened> => {
    for (;;) {
      reason = undefined;
      try {
        return await connectOnce();
      } catch (error) {
        // Slack closed it before its hello: the SDK rejects without a cause.
        if (reason !== LINK_DISABLED)
          throw error ?? Object.assign(new Error(reason ?? 'closed'), { code: reason ?? 'socket_closed' });
        await delay(retry.maxMs, undefined, { signal });
      }
    }
  };
  const connect = () =>
    (connecting ??= untilAccepted('SLACK_APP_TOKEN', attempt, log, retry, signal).finally(() => {
      connecting = undefined;
    }));
  client.start = connect;

  client.on('connected', () => {
    connected = true;
    disabledSaid = false;
  });
  client.on('ws_message', (data: unknown) => {
    const said = disconnectReason(data);
    if (!said) return;
    reason = said;
    // The SDK has just sent its close frame and would wait for Slack to end the TCP connection, which Slack does not
    // (@slack/socket-mode 3.2.0 changelog, #2752) until its ping watchdog gives up: a second call ends it at once.
    (client as unknown as { websocket?: { disconnect(): void } }).websocket?.disconnect();
    if (reason !== LINK_DISABLED || disabledSaid) return;
    disabledSaid = true;
    log.error('slack.socket_mode_disabled', {
      message: `Slack closed the connection: Socket Mode is turned off in the app's settings (api.slack.com/apps → Socket Mode). Turn it back on, or unset SLACK_APP_TOKEN to run over HTTP. Trying again every ${Math.round(retry.maxMs / 1000)} s meanwhile.`,
    });
  });
  client.on('disconnected', () => {
    // A try that failed before Slack's hello is the loop's to retry.
    if (connecting && !connected) return;
    connected = false;
    if (signal.aborted) return;
    const routine = reason === 'refresh_requested' || reason === 'warning';
    (routine ? log.info : log.warn).call(log, 'slack.socket_disconnected', { reason: reason ?? 'dropped' });
    const wait = reason === LINK_DISABLED ? retry.maxMs : 0;
    delay(wait, undefined, { signal })
      .then(connect)
      .catch((error: unknown) => {
        if (!signal.aborted) log.error('slack.socket_reconnect_failed', { error });
      });
  });
  return { connected: () => connected };
}

/** The reason of Slack's `disconnect` message, if `data` is one. */
function disconnectReason(data: unknown): string | undefined {
  if (typeof data !== 'string' || !DISCONNECT.test(data)) return undefined;
  try {
    const message = JSON.parse(data) as { type?: unknown; reason?: unknown };
    return message.type === 'disconnect' ? String(message.reason) : undefined;
  } catch {
    return undefined;
  }
}
