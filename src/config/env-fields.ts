import { z } from 'zod';
import { PROJECT_ID } from '../mintlify/schemas.js';

// The kinds of value the environment holds, each parsed by one zod schema that names what is expected (never the
// value given): config.ts builds its schema from these.

export const PORT_EXPECTED = 'expected a port number (0–65535)';

export const port = (fallback: number) =>
  z.coerce
    .number({ error: PORT_EXPECTED })
    .int(PORT_EXPECTED)
    .min(0, PORT_EXPECTED)
    .max(65_535, PORT_EXPECTED)
    .default(fallback);

/** METRICS_PORT on the public port would serve `/metrics` to anyone who reaches Slack's. */
export function portProblems(env: { PORT: number; METRICS_PORT: number }) {
  if (env.METRICS_PORT === 0 || env.METRICS_PORT !== env.PORT) return [];
  const message = 'must differ from PORT: /metrics is for the operator, never served where Slack sends requests';
  return [{ code: 'custom' as const, path: ['METRICS_PORT'], message }];
}

export const optional = z
  .string()
  .trim()
  .optional()
  .transform((v) => (v ? v : undefined));
export const url = (fallback: string) =>
  z
    .string()
    .trim()
    .default(fallback)
    .pipe(z.url({ protocol: /^https?$/, error: 'expected an http(s) URL' }));
export const positiveInt = (fallback: number) =>
  z.coerce
    .number({ error: 'expected a whole number' })
    .int('expected a whole number')
    .positive('expected a positive whole number')
    .default(fallback);
export const idList = z
  .string()
  .optional()
  .transform((v) =>
    (v ?? '')
      .split(',')
      .map((id) => id.trim())
      .filter(Boolean),
  )
  .pipe(z.array(z.string().regex(/^[A-Z0-9]+$/, 'expected comma-separated Slack ids such as U012AB3CD')));

/** `true` or `false` (any case); unset is `unset`. */
const flagUnset = (unset: 'true' | 'false') =>
  z
    .string()
    .trim()
    .toLowerCase()
    .default(unset)
    .pipe(z.enum(['true', 'false'], { error: 'expected true or false' }))
    .transform((v) => v === 'true');
/** `true` or `false` (any case); unset is `false`. */
export const flag = flagUnset('false');
/** `true` or `false` (any case); unset is `true`: a switch to turn off. */
export const flagOn = flagUnset('true');

export const CHANNEL_ID = /^[CGD][A-Z0-9]{2,}$/;

/**
 * `left:right,left:right` as a record, e.g. `C0AAA:proj_b`. Each problem names the entry by position and its left
 * side (a channel or project id, never the right side, which may be a key); all are reported at once.
 */
export function pairList(format: string, leftOk: RegExp, rightProblem: (right: string) => string | undefined) {
  return z
    .string()
    .optional()
    .transform((v, ctx) => {
      const pairs: Record<string, string> = {};
      const entries = (v ?? '').split(',').map((entry) => entry.trim());
      entries.filter(Boolean).forEach((entry, i) => {
        const colon = entry.indexOf(':');
        const left = entry.slice(0, Math.max(colon, 0)).trim();
        const right = entry.slice(colon + 1).trim();
        // Without a colon (or with a key on the left) the entry's own text must not be echoed: it may be a key.
        const problem =
          !leftOk.test(left) || left.startsWith('mint_')
            ? `entry ${i + 1}: expected ${format}`
            : left in pairs
              ? `entry ${i + 1}: ${left} appears twice`
              : rightProblem(right) && `entry ${i + 1} (${left}): ${rightProblem(right)}`;
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
        else pairs[left] = right;
      });
      return pairs;
    });
}
/** A user name or password in an address: a secret it would show wherever the address is shown (App Home). */
export const hasCredentials = (url: URL) => url.username !== '' || url.password !== '';
/** A docs site's address: https, a host, nothing after the path (links to it are matched by host and path). */
export const docsUrlProblem = (value: string) => {
  const expected = 'expected the https address of the docs site, e.g. https://docs.example.com';
  if (!URL.canParse(value)) return expected;
  const url = new URL(value);
  const plain = url.protocol === 'https:' && url.hostname && !url.search && !url.hash;
  return plain && !hasCredentials(url) ? undefined : expected;
};
/** The docs sites: the default project's (`MINTLIFY_DOCS_URL`) and the others' (`project id:URL` pairs). */
export const docsUrlFields = {
  own: optional.refine((v) => v === undefined || !docsUrlProblem(v), {
    message: 'expected the https address of the docs site, e.g. https://docs.example.com',
  }),
  others: pairList('project id:docs URL, e.g. proj_b:https://docs.b.example', PROJECT_ID, docsUrlProblem),
};
/** Each project's docs site, by project id. */
export function docsSites(projectId: string | undefined, own: string | undefined, others: Record<string, string>) {
  return { ...(projectId && own && { [projectId]: own }), ...others };
}
/** `REDIS_URL`, as the app and `npm run queues` read it. */
export const redisUrlField = optional.pipe(
  z.url({ protocol: /^rediss?$/, error: 'expected redis:// or rediss:// URL' }).optional(),
);
/** `MINTLIFY_PROJECT_ID`, as the app and `npm run queues` read it. */
export const projectIdField = optional.superRefine((id, ctx) => {
  const problem = id === undefined ? undefined : projectIdProblem(id);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});
/** A key pasted where a project id goes would be shown wherever the project is named (metrics, Slack, the queues). */
export const projectIdProblem = (id: string) =>
  id.startsWith('mint_')
    ? 'an admin API key (mint_…) is not a project id: the key has its own place (MINTLIFY_API_KEY, or the Connect form’s key field); here goes the project id from the dashboard'
    : PROJECT_ID.test(id)
      ? undefined
      : 'expected a project id (letters, digits, _ or -)';
/**
 * An admin key is sent as a Bearer token (the admin API's security scheme), so it has that token's characters
 * (RFC 6750 `b64token`), which are also every character the log redaction (`log.ts`) hides after `mint_`.
 */
export const API_KEY = /^mint_[A-Za-z0-9._~+/-]+=*$/;
export const API_KEY_EXPECTED = 'must be an admin API key: "mint_" then letters, digits and - . _ ~ + / =';
export const apiKeyProblem = (key: string) => (API_KEY.test(key) ? undefined : API_KEY_EXPECTED);

/** What a single-workspace deployment cannot start without. */
export function missingSingleWorkspace(env: Record<string, unknown>) {
  const required: [string, string][] = [
    ['SLACK_BOT_TOKEN', 'the bot token (xoxb-…)'],
    ['MINTLIFY_API_KEY', 'an admin API key (mint_…)'],
    ['MINTLIFY_PROJECT_ID', 'the Mintlify project id'],
  ];
  return required
    .filter(([name]) => !env[name])
    .map(([name, what]) => ({ code: 'custom' as const, path: [name], message: `required: ${what}` }));
}
