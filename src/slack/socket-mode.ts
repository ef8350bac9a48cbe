import type { SocketModeReceiver } from '@slack/bolt';
import type { Logger } from '../log.js';
import { type RetryOptions, untilAccepted } from './token-check.js';

/**
 * The SDK reconnects after a drop by calling `start` again, and gives up for good (an unhandled rejection) when
 * Slack cannot be reached at that moment. Every connection, the first and each reconnection, goes through the same
 * patient loop instead: backoff and a log line per try, a refused token named. `connected` follows the socket, so
 * `/healthz` says 503 while it is down.
 */
export function patientSocket(
  socket: SocketModeReceiver,
  log: Logger,
  retry: RetryOptions,
  signal: AbortSignal,
): { connected(): boolean } {
  let connected = false;
  let everConnected = false;
  const connectOnce = socket.client.start.bind(socket.client);
  socket.client.start = () => untilAccepted('SLACK_APP_TOKEN', connectOnce, log, retry, signal);
  socket.client.on('connected', () => {
    connected = true;
    everConnected = true;
  });
  for (const state of ['close', 'reconnecting', 'disconnected']) {
    socket.client.on(state, () => {
      connected = false;
      if (everConnected) log.warn('slack.socket_disconnected', { state });
    });
  }
  return { connected: () => connected };
}
