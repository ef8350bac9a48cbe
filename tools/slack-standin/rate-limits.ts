/**
 * Slack's Web API rate limits (docs.slack.dev/apis/web-api/rate-limits): each method has a tier, counted "per API
 * method per workspace per app" over a minute; a call over budget gets HTTP 429, `Retry-After` (seconds) and
 * `{ ok: false, error: 'ratelimited' }`. The stand-in uses each tier's floor (Tier 1: 1, Tier 2: 20, Tier 3: 50,
 * Tier 4: 100 a minute) and a sliding window of the calls it accepted. Off unless turned on.
 */

export interface Budget {
  /** Calls accepted per window. */
  limit: number;
  windowMs: number;
  /** Counted per channel (`channel`/`channel_id` argument) instead of per workspace. */
  perChannel?: boolean;
}

export type Tier = 1 | 2 | 3 | 4;

const MINUTE = 60_000;
const TIER_PER_MINUTE: Record<Tier, number> = { 1: 1, 2: 20, 3: 50, 4: 100 };

export function tier(n: Tier): Budget[] {
  return [{ limit: TIER_PER_MINUTE[n], windowMs: MINUTE }];
}

/**
 * Each method's published tier (its reference page, "Rate limits"). Special ones: chat.postMessage allows about one
 * message per second per channel and "several hundred" a minute per workspace (300 here); setStatus is "special"
 * without a figure (one per second per thread's channel here, as for posting); auth.test is "special" without a
 * figure (Tier 4 here).
 */
const PUBLISHED: Record<string, Budget[]> = {
  'api.test': tier(4),
  'auth.test': tier(4),
  'auth.teams.list': tier(2),
  'apps.connections.open': tier(3),
  'oauth.v2.access': tier(4),
  'users.info': tier(4),
  'conversations.info': tier(3),
  'conversations.open': tier(3),
  'conversations.history': tier(3),
  'conversations.replies': tier(3),
  'users.conversations': tier(3),
  'chat.postMessage': [
    { limit: 1, windowMs: 1_000, perChannel: true },
    { limit: 300, windowMs: MINUTE },
  ],
  'chat.postEphemeral': tier(4),
  'chat.update': tier(3),
  'chat.unfurl': tier(3),
  'chat.startStream': tier(2),
  'chat.appendStream': tier(4),
  'chat.stopStream': tier(2),
  'agents.sessions.setStatus': tier(3),
  'agents.sessions.rename': tier(3),
  'chat.delete': tier(3),
  'chat.getPermalink': tier(4),
  'reactions.add': tier(3),
  'reactions.remove': tier(2),
  'files.info': tier(4),
  'files.getUploadURLExternal': tier(4),
  'files.completeUploadExternal': tier(4),
  'views.open': tier(4),
  'views.push': tier(4),
  'views.update': tier(4),
  'views.publish': tier(4),
  'assistant.threads.setStatus': [{ limit: 1, windowMs: 1_000, perChannel: true }],
  'assistant.threads.setSuggestedPrompts': tier(4),
  'assistant.threads.setTitle': tier(4),
};

/**
 * Slack's 2025 change (changelog 2025-05-29, "Rate limit changes for non-Marketplace apps"): commercially
 * distributed apps not approved for the Marketplace get Tier 1 (1 request a minute) on conversations.history and
 * conversations.replies, and at most 15 messages a page (also the default). Internal and Marketplace apps keep Tier 3.
 */
export type ConversationsAccess = 'marketplace-or-internal' | 'non-marketplace';
export const NON_MARKETPLACE_PAGE = 15;
const READS = new Set(['conversations.history', 'conversations.replies']);

export interface RateLimitOptions {
  /** Multiplies every window: 1/60 makes a minute last a second, for tests on an accelerated clock. */
  windowScale?: number;
  conversations?: ConversationsAccess;
}

export interface MethodReport {
  calls: number;
  /** Calls answered 429. */
  ratelimited: number;
  /** The most calls in any one (scaled) minute. */
  peakPerMinute: number;
}

interface Seen {
  method: string;
  teamId: string;
  at: number;
  limited: boolean;
}

export class RateLimits {
  enabled = false;
  windowScale = 1;
  conversations: ConversationsAccess = 'marketplace-or-internal';
  /** Every Web API call counted, limited or not (whether or not limits are on). */
  readonly seen: Seen[] = [];
  private readonly overrides = new Map<string, Budget[]>();
  private readonly accepted = new Map<string, number[]>();

  constructor(private readonly now: () => number) {}

  /** Turns limits on (the app must then live with Slack's tiers). */
  enable(options: RateLimitOptions = {}): this {
    this.enabled = true;
    this.windowScale = options.windowScale ?? this.windowScale;
    this.conversations = options.conversations ?? this.conversations;
    return this;
  }

  disable(): void {
    this.enabled = false;
  }

  /** Sets `method`'s budget (a tier or budgets), for every workspace or for `teamId` only. */
  set(method: string, budget: Tier | Budget[], teamId?: string): void {
    this.overrides.set(teamId ? `${teamId}|${method}` : method, typeof budget === 'number' ? tier(budget) : budget);
  }

  budgets(method: string, teamId: string): Budget[] {
    const own = this.overrides.get(`${teamId}|${method}`) ?? this.overrides.get(method);
    if (own) return own;
    if (READS.has(method) && this.conversations === 'non-marketplace') return tier(1);
    return PUBLISHED[method] ?? [];
  }

  /** The page size a conversations read gets: at most 15 (and 15 by default) for a non-Marketplace app. */
  pageSize(method: string, asked: number | undefined, usual: number, max: number): number {
    if (READS.has(method) && this.conversations === 'non-marketplace')
      return Math.min(asked || NON_MARKETPLACE_PAGE, 15);
    return Math.min(asked || usual, max);
  }

  /** Counts a call; when limits are on and it is over a budget, the seconds Slack would ask to wait. */
  take(method: string, teamId: string, channel: string | undefined): number | undefined {
    const at = this.now();
    const wait = this.enabled ? this.waitMs(method, teamId, channel, at) : 0;
    this.seen.push({ method, teamId, at, limited: wait > 0 });
    if (wait > 0) return Math.max(1, Math.ceil(wait / 1000));
    for (const [key] of this.keyed(method, teamId, channel)) this.log(key).push(at);
    return undefined;
  }

  /** Calls, 429s and the busiest (scaled) minute per method, for a test to report. */
  report(teamId?: string): Record<string, MethodReport> {
    const out: Record<string, MethodReport> = {};
    const minute = MINUTE * this.windowScale;
    const times = new Map<string, number[]>();
    for (const s of this.seen) {
      if (teamId && s.teamId !== teamId) continue;
      const r = out[s.method] ?? { calls: 0, ratelimited: 0, peakPerMinute: 0 };
      out[s.method] = r;
      r.calls += 1;
      if (s.limited) r.ratelimited += 1;
      const list = times.get(s.method);
      if (list) list.push(s.at);
      else times.set(s.method, [s.at]);
    }
    for (const [method, at] of times) {
      let first = 0;
      for (const [i, t] of at.entries()) {
        while ((at[first] ?? t) <= t - minute) first += 1;
        const r = out[method] as MethodReport;
        r.peakPerMinute = Math.max(r.peakPerMinute, i - first + 1);
      }
    }
    return out;
  }

  reset(): void {
    this.seen.length = 0;
    this.accepted.clear();
  }

  private waitMs(method: string, teamId: string, channel: string | undefined, at: number): number {
    let wait = 0;
    for (const [key, budget] of this.keyed(method, teamId, channel)) {
      const windowMs = budget.windowMs * this.windowScale;
      const recent = this.log(key).filter((t) => t > at - windowMs);
      this.accepted.set(key, recent);
      const oldest = recent[recent.length - budget.limit];
      if (recent.length >= budget.limit && oldest !== undefined) wait = Math.max(wait, oldest + windowMs - at);
    }
    return wait;
  }

  private keyed(method: string, teamId: string, channel: string | undefined): [string, Budget][] {
    return this.budgets(method, teamId).map((b, i) => [
      `${teamId}|${method}|${i}|${b.perChannel ? (channel ?? '') : ''}`,
      b,
    ]);
  }

  private log(key: string): number[] {
    const log = this.accepted.get(key) ?? [];
    this.accepted.set(key, log);
    return log;
  }
}
