import { Again } from '../queue/engine.js';
import type { HomeData } from './lane-data.js';
import { type HomeDeps, publishFailure, publishHome } from './publish.js';

/**
 * The `homes` lane's processor: publishes the person's Home from the store as it is now. Slack's 429 is waited out
 * (the same job, after Retry-After); a transient failure (Slack's, or the store not answering) is thrown, for the
 * lane's retries; a refusal for good (the person left, the view refused) is logged and dropped.
 */
export async function republishHome(deps: HomeDeps, data: HomeData): Promise<Again | undefined> {
  try {
    await publishHome(deps, data.userId);
  } catch (error) {
    const failure = publishFailure(error);
    if (failure.kind === 'rate_limited') return new Again(data, failure.retryAfterMs);
    if (failure.kind !== 'final') throw error;
    deps.log.warn('slack.views_publish_failed', { op: 'home', slack_error: failure.code });
  }
  return undefined;
}
