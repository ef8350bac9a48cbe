import { randomBytes } from 'node:crypto';
import { type Answer, type Args, ok, refuse } from './methods/answer.js';
import type { SlackStandin } from './server.js';
import type { TokenOwner } from './tokens.js';

/** An access token lives 12 hours once the app turns token rotation on (docs.slack.dev: using token rotation). */
export const ROTATING_TOKEN_LIFE_S = 43_200;

interface RefreshToken {
  owner: TokenOwner;
  /** What `oauth.v2.access` answers besides the new pair (team, enterprise, bot user, scope). */
  install: Record<string, unknown>;
  /** The access token issued with it. */
  accessToken: string;
  used: boolean;
}

/**
 * Slack's token rotation (docs.slack.dev/authentication/using-token-rotation), off until a test turns it on: an
 * install then hands out an expiring bot token (`xoxe.xoxb-…`, `expires_in`) with a refresh token (`xoxe-1-…`);
 * `oauth.v2.access` with `grant_type=refresh_token` exchanges a refresh token, once, for a new pair. An expired
 * access token is refused with `token_expired`.
 */
export class TokenRotation {
  enabled = false;
  /** Seconds a new access token lives. */
  lifeS = ROTATING_TOKEN_LIFE_S;
  private readonly refreshTokens = new Map<string, RefreshToken>();

  constructor(private readonly slack: SlackStandin) {}

  /** The token fields of an install's answer: an expiring pair when rotation is on, else a token that never expires. */
  botPair(owner: TokenOwner, install: Record<string, unknown>, scopes: readonly string[]): Record<string, unknown> {
    const token = this.slack.tokens.issue('bot', owner, scopes);
    if (!this.enabled) return { access_token: token };
    return this.pair(owner, install, token);
  }

  /** `oauth.v2.access` with `grant_type=refresh_token` (client already checked). */
  refresh(args: Args): Answer {
    const found = typeof args.refresh_token === 'string' ? this.refreshTokens.get(args.refresh_token) : undefined;
    if (!found || found.used || !this.enabled) return refuse('invalid_refresh_token');
    // An uninstall or a revocation ends the pair: the access token it came with is refused, not merely expired.
    if (this.slack.tokens.get(found.accessToken)?.refused) return refuse('invalid_refresh_token');
    found.used = true;
    const token = this.slack.tokens.issue('bot', found.owner, this.slack.tokens.get(found.accessToken)?.scopes ?? []);
    return ok({ ...found.install, token_type: 'bot', ...this.pair(found.owner, found.install, token) });
  }

  /** Time passes for `owner`: every access token issued to it so far has expired. */
  expireAll(owner: TokenOwner): void {
    this.slack.tokens.expireAll(owner, this.slack.now());
  }

  private pair(owner: TokenOwner, install: Record<string, unknown>, token: string): Record<string, unknown> {
    const accessToken = `xoxe.${token}`;
    this.slack.tokens.rename(token, accessToken, this.slack.now() + this.lifeS * 1000);
    const refreshToken = `xoxe-1-${randomBytes(24).toString('hex')}`;
    this.refreshTokens.set(refreshToken, { owner, install, accessToken, used: false });
    return { access_token: accessToken, refresh_token: refreshToken, expires_in: this.lifeS };
  }
}
