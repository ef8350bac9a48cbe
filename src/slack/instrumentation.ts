import { setImmediate as afterPendingIo } from 'node:timers/promises';
import type { App } from '@slack/bolt';
import type { Logger } from '../log.js';
import type { Metrics, RequestOutcome } from '../metrics.js';
import { ReplayedRequestError, TEAM_ACCESS_NOT_GRANTED, TOKEN_REFUSED } from './errors.js';

/**
 * The `fetch` the Slack Web API client uses, counting failed calls by method and error, and telling
 * `tokenRefused` when Slack refused the client's token, or an org-wide token in a workspace (`team_access_not_granted`),
 * with Slack's code. Slack answers most refusals with HTTP 200 and `ok: false`, so the body is read (from a copy) too.
 */
export function observingFetch(apiUrl: string, metrics: Metrics, tokenRefused?: (code: string) => void) {
  return async (url: string | URL, init?: RequestInit): Promise<Response> => {
    const href = String(url);
    // Upload URLs are absolute and per file: one label for all of them.
    const method = href.startsWith(apiUrl) ? (href.slice(apiUrl.length).split('?')[0] ?? '') : 'file_upload';
    let response: Response;
    try {
      response = await fetch(url, init);
    } catch (error) {
      metrics.slackApiError(method, 'request_error');
      throw error;
    }
    if (response.status === 429) metrics.slackApiError(method, 'ratelimited');
    else if (!response.ok) metrics.slackApiError(method, `http_${response.status}`);
    else if (method !== 'file_upload') {
      const body = (await response
        .clone()
        .json()
        // a body that is not JSON is counted by its HTTP status alone.
        .catch(() => undefined)) as { ok?: unknown; error?: unknown } | undefined;
      if (body?.ok === false) {
        const code = String(body.error);
        metrics.slackApiError(method, code);
        if (TOKEN_REFUSED.has(code) || code === TEAM_ACCESS_NOT_GRANTED) tokenRefused?.(code);
      }
    }
    return response;
  };
}

/** What kind of request Slack sent: the command, the event type or the action id (all bounded by the app). */
export function requestKind(body: Record<string, unknown>): string {
  if (typeof body.command === 'string') return body.command;
  const event = body.event as { type?: unknown } | undefined;
  if (body.type === 'event_callback') return `event:${String(event?.type)}`;
  const actions = body.actions as { action_id?: unknown }[] | undefined;
  if (body.type === 'block_actions') return `action:${String(actions?.[0]?.action_id)}`;
  return String(body.type ?? 'unknown');
}

/**
 * A listener's failure: one line (`slack.listener_error`) and `slack_listener_errors_total`. From Bolt's error handler
 * and from `endsAtAck` (after-ack.ts), whose failures after the ack come when Bolt has already let the request go.
 */
export function listenerFailed(deps: { log: Pick<Logger, 'error'>; metrics: Metrics }, kind: string, error: unknown) {
  if (error instanceof ReplayedRequestError) return; // not a failure: logged where it was found (`replays.ts`)
  const { name, code, message } = error as Error & { code?: string };
  deps.log.error('slack.listener_error', { kind, name, code, error: message });
  deps.metrics.listenerError(kind);
}

/**
 * Times every request Slack sends (either receiver hands it to `processEvent`): one `slack.request` line at
 * info with its kind, ack time and outcome, and the same in metrics; and is Bolt's error handler, which logs a
 * listener's error and marks its request failed. Bolt hands that handler the request's body (the app is built with
 * `extendedErrorHandler`), so the failed request is known by its body object: no `AsyncLocalStorage`, whose promise
 * hooks would run on every promise of the process (BENCHMARKS §1b).
 */
export function observeRequests(bolt: App, log: Logger, metrics: Metrics): void {
  const failed = new WeakSet<object>();
  bolt.error(async ({ error, body }: { error: Error & { code?: string }; body: unknown }) => {
    if (error instanceof ReplayedRequestError) return;
    const known = typeof body === 'object' && body !== null;
    if (known) failed.add(body);
    listenerFailed({ log, metrics }, known ? requestKind(body as Record<string, unknown>) : 'unknown', error);
  });
  const process = bolt.processEvent.bind(bolt);
  bolt.processEvent = async (event) => {
    const started = performance.now();
    const kind = requestKind(event.body);
    let ackMs: number | undefined;
    const timed = {
      ...event,
      ack: async (response?: Parameters<typeof event.ack>[0]) => {
        ackMs ??= Math.round((performance.now() - started) * 10) / 10;
        await event.ack(response);
        // The work after an ack waits for the other requests already read: their acks are sent first.
        await afterPendingIo();
      },
    };
    let threw = false;
    try {
      await process(timed);
    } catch (error) {
      threw = true;
      throw error;
    } finally {
      const outcome: RequestOutcome =
        threw || failed.has(event.body) ? 'error' : ackMs === undefined ? 'not_acked' : 'ok';
      metrics.slackRequest(kind, ackMs, outcome);
      const duration_ms = Math.round(performance.now() - started);
      log.info('slack.request', { kind, ack_ms: ackMs, outcome, duration_ms });
    }
  };
}
