import { setTimeout as sleep } from 'node:timers/promises';

type Fetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

/**
 * Methods whose 429 goes back to the caller at once: their work is a queue job that waits out `Retry-After` itself
 * (`Again`: the outcome post, the root's update, App Home), which frees the worker instead of holding it.
 */
const WAITED_BY_CALLER: ReadonlySet<string> = new Set(['chat.postMessage', 'chat.update', 'views.publish']);
/** A longer wait goes back to the caller too: a person (or a lane) is not held longer inside one call. */
const MAX_WAIT_MS = 3_000;
const MAX_TRIES = 3;

/**
 * Honours Slack's `429 Retry-After` for every other Web API call (reactions, reads, modals…) inside the client: the
 * call is made again after the wait, a few times at most. Slack did nothing on a 429, so repeating it is safe.
 */
export function waitingOutRateLimits(apiUrl: string, fetch: Fetch): Fetch {
  return async (url, init) => {
    const href = String(url);
    const method = href.startsWith(apiUrl) ? (href.slice(apiUrl.length).split('?')[0] ?? '') : '';
    for (let tries = 1; ; tries++) {
      const response = await fetch(url, init);
      if (response.status !== 429 || !method || WAITED_BY_CALLER.has(method) || tries >= MAX_TRIES) return response;
      const waitMs = Math.max(1, Number(response.headers.get('retry-after')) || 1) * 1_000;
      if (waitMs > MAX_WAIT_MS) return response;
      await response.body?.cancel();
      await sleep(waitMs, undefined, init?.signal ? { signal: init.signal } : undefined);
    }
  };
}
