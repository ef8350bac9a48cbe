import { createHash } from 'node:crypto';
import { z } from 'zod';

/**
 * What the simulator answers when a known key is used for a project it does not serve. The documents list no
 * 401, 403 or 404 for this: 403 is HTTP bearer auth's "insufficient scope" (RFC 6750 §3.1), and it does not
 * collide with the 404 the job paths document as "Job not found". 401 and 404 stay selectable, so a test can
 * show the bot copes with whichever the real service answers.
 */
export const UNSERVED_PROJECT_STATUSES = [401, 403, 404] as const;
export type UnservedProjectStatus = (typeof UNSERVED_PROJECT_STATUSES)[number];

export interface KeyConfig {
  /** Admin key → the projects it serves. Any other key is refused with 401. */
  keys: Record<string, string[]>;
  /** Default 403. */
  unservedProjectStatus?: UnservedProjectStatus;
}

/** `PUT /__sim/keys`: `{"keys": {"mint_a": ["proj_a"]}, "unservedProjectStatus": 404}`. */
export const KeyConfigSchema = z.strictObject({
  keys: z.record(z.string().regex(/^\S+$/, 'a key has no spaces'), z.array(z.string().min(1))),
  unservedProjectStatus: z.union(UNSERVED_PROJECT_STATUSES.map((status) => z.literal(status))).optional(),
});

export type AuthVerdict = { ok: true } | { ok: false; status: number; error: string };

const BEARER = /^Bearer (\S+)$/;
const OK: AuthVerdict = { ok: true };
const REFUSED: AuthVerdict = { ok: false, status: 401, error: 'Unauthorized' };
const UNSERVED: Record<UnservedProjectStatus, AuthVerdict> = {
  401: REFUSED,
  403: { ok: false, status: 403, error: 'This API key does not have access to this project' },
  404: { ok: false, status: 404, error: 'Project not found' },
};

/**
 * Who may call which project. With no key config, any `Bearer mint_…` key works, except for `projectKeys`
 * (a project → the only key it accepts). With a key config, only its keys work, each for its own projects.
 */
export class KeyRing {
  #config: KeyConfig | undefined;
  readonly #projectKeys: Record<string, string>;

  constructor(projectKeys: Record<string, string> = {}, config?: KeyConfig) {
    this.#projectKeys = projectKeys;
    this.#config = config;
  }

  configure(config: KeyConfig | undefined): void {
    this.#config = config;
  }

  check(authorization: string | undefined, projectId: string): AuthVerdict {
    const key = BEARER.exec(authorization ?? '')?.[1];
    if (!this.#config) {
      if (!key?.startsWith('mint_')) return REFUSED;
      const own = this.#projectKeys[projectId];
      return own === undefined || own === key ? OK : REFUSED;
    }
    const projects = key === undefined ? undefined : this.#config.keys[key];
    if (!projects) return REFUSED;
    return projects.includes(projectId) ? OK : UNSERVED[this.#config.unservedProjectStatus ?? 403];
  }
}

/** The first 12 hex digits of the key's SHA-256: enough to tell keys apart, useless to anyone reading a log. */
export function keyFingerprint(key: string): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 12);
}
