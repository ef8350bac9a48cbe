import { randomBytes } from 'node:crypto';
import { APP_TOKEN_SCOPES, manifestBotScopes } from './scopes.js';

/** Whose a token is: one workspace's install, or an organisation's org-wide install. */
export type TokenOwner = { teamId: string } | { enterpriseId: string };

/** Bot (`xoxb-`), user (`xoxp-`) or app-level (`xapp-`); once refused, why (`token_revoked`, `account_inactive`, …). */
export interface TokenState {
  kind: 'bot' | 'user' | 'app';
  owner: TokenOwner;
  /** What the token may do (scopes.ts): an app-level token connects; a bot token has what its install granted. */
  scopes: readonly string[];
  refused?: string;
  /** When it stops working (ms, the stand-in's clock): tokens of an app with token rotation on. */
  expiresAt?: number;
}

/** A token's scopes unless given: the app-level token's, or what installing from the project's manifest grants. */
const defaultScopes = (kind: TokenState['kind']) => (kind === 'app' ? APP_TOKEN_SCOPES : manifestBotScopes());

/** The tokens the stand-in knows, whose each is, and which it now refuses. */
export class Tokens {
  private readonly states = new Map<string, TokenState>();

  get(token: string): TokenState | undefined {
    return this.states.get(token);
  }

  accept(token: string, kind: TokenState['kind'], owner: TokenOwner, scopes = defaultScopes(kind)): void {
    this.states.set(token, { kind, owner, scopes });
  }

  /** A fresh token for an install, as OAuth hands out, with the scopes the install granted. */
  issue(kind: 'bot' | 'user', owner: TokenOwner, scopes: readonly string[]): string {
    const id = 'teamId' in owner ? owner.teamId : owner.enterpriseId;
    const token = `${kind === 'bot' ? 'xoxb' : 'xoxp'}-${id}-${randomBytes(12).toString('hex')}`;
    this.accept(token, kind, owner, scopes);
    return token;
  }

  refuse(token: string, error: string): void {
    const state = this.states.get(token);
    if (state) state.refused = error;
    else this.states.set(token, { kind: 'bot', owner: { teamId: '' }, scopes: [], refused: error });
  }

  /** The same token under the name token rotation gives it (`xoxe.xoxb-…`), expiring at `expiresAt`. */
  rename(from: string, to: string, expiresAt: number): void {
    const state = this.states.get(from);
    if (!state) return;
    this.states.delete(from);
    this.states.set(to, { ...state, expiresAt });
  }

  /** Every expiring token of `owner` issued so far has expired by `now`. */
  expireAll(owner: TokenOwner, now: number): void {
    for (const state of this.states.values()) {
      if (state.expiresAt !== undefined && sameOwner(state.owner, owner))
        state.expiresAt = Math.min(state.expiresAt, now);
    }
  }

  /**
   * Why `token` is refused at `now`, if it is: expired (`token_expired`), or revoked. An expired token answers
   * `token_expired` even once revoked: Slack does not say which answer wins, and this is the one that says less.
   */
  refusal(token: string, now: number): string | undefined {
    const state = this.states.get(token);
    if (state?.expiresAt !== undefined && now >= state.expiresAt) return 'token_expired';
    return state?.refused;
  }

  /** Refuses every bot and user token of `owner` (an uninstall, a revocation); the app-level token stays. */
  refuseAll(owner: TokenOwner, error: string): void {
    for (const state of this.states.values()) {
      if (state.kind !== 'app' && sameOwner(state.owner, owner)) state.refused = error;
    }
  }
}

function sameOwner(a: TokenOwner, b: TokenOwner): boolean {
  return 'teamId' in a && 'teamId' in b
    ? a.teamId === b.teamId
    : 'enterpriseId' in a && 'enterpriseId' in b && a.enterpriseId === b.enterpriseId;
}
