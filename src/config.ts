import { existsSync } from 'node:fs';
import { z } from 'zod';
import { PROJECT_ID } from './projects.js';

export const DEFAULT_SLACK_API_URL = 'https://slack.com/api/';
export const DEFAULT_MINTLIFY_API_URL = 'https://api.mintlify.com';
export const DEFAULT_PORT = 3000;
export const DEFAULT_POLL_INTERVAL_MS = 5_000;
export const DEFAULT_POLL_MAX_INTERVAL_MS = 60_000;
export const DEFAULT_STORE_NAMESPACE = 'mintlify-slack';
export const DEFAULT_JOB_MAX_AGE_MS = 24 * 60 * 60 * 1000;
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;

const PORT_EXPECTED = 'expected a port number (0–65535)';

/** The placeholders `.env.example` ships with: a copied, unedited file must not start a bot. */
export const EXAMPLE_VALUES: Readonly<Record<string, string>> = {
  SLACK_BOT_TOKEN: 'xoxb-...',
  SLACK_APP_TOKEN: 'xapp-...',
  SLACK_SIGNING_SECRET: 'your-signing-secret',
  MINTLIFY_API_KEY: 'mint_...',
  MINTLIFY_PROJECT_ID: 'your-project-id',
};
const STILL_EXAMPLE = 'still the example value from .env.example: put in your own';
const required = (what: string) =>
  z
    .string({ error: `required: ${what}` })
    .trim()
    .min(1, `required: ${what}`);
const optional = z
  .string()
  .trim()
  .optional()
  .transform((v) => (v ? v : undefined));
const url = (fallback: string) =>
  z
    .string()
    .trim()
    .default(fallback)
    .pipe(z.url({ protocol: /^https?$/, error: 'expected an http(s) URL' }));
const positiveInt = (fallback: number) =>
  z.coerce
    .number({ error: 'expected a whole number' })
    .int('expected a whole number')
    .positive('expected a positive whole number')
    .default(fallback);
const idList = z
  .string()
  .optional()
  .transform((v) =>
    (v ?? '')
      .split(',')
      .map((id) => id.trim())
      .filter(Boolean),
  )
  .pipe(z.array(z.string().regex(/^[A-Z0-9]+$/, 'expected comma-separated Slack ids such as U012AB3CD')));

const CHANNEL_ID = /^[CGD][A-Z0-9]{2,}$/;

/**
 * `left:right,left:right` as a record, e.g. `C0AAA:proj_b`. Each problem names the entry by position and its left
 * side (a channel or project id, never the right side, which may be a key); all are reported at once.
 */
function pairList(format: string, leftOk: RegExp, rightProblem: (right: string) => string | undefined) {
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
const projectIdProblem = (id: string) =>
  PROJECT_ID.test(id) ? undefined : 'expected a project id (letters, digits, _ or -)';
const apiKeyProblem = (key: string) =>
  /^mint_\S+$/.test(key) ? undefined : 'must be an admin API key starting with "mint_"';

const EnvSchema = z
  .object({
    SLACK_BOT_TOKEN: required('the bot token (xoxb-…)').refine((v) => v.startsWith('xoxb-'), {
      message: 'must be a bot token starting with "xoxb-" (OAuth & Permissions → Bot User OAuth Token)',
    }),
    SLACK_SIGNING_SECRET: optional,
    SLACK_APP_TOKEN: optional,
    SLACK_API_URL: url(DEFAULT_SLACK_API_URL),
    MINTLIFY_API_KEY: required('an admin API key (mint_…)').refine((v) => v.startsWith('mint_'), {
      message: 'must be an admin API key starting with "mint_"',
    }),
    MINTLIFY_PROJECT_ID: required('the Mintlify project id').refine((v) => !projectIdProblem(v), {
      message: 'expected a project id (letters, digits, _ or -)',
    }),
    MINTLIFY_API_URL: url(DEFAULT_MINTLIFY_API_URL),
    MINTLIFY_CHANNEL_PROJECTS: pairList('channel id:project id, e.g. C0AAA:proj_b', CHANNEL_ID, projectIdProblem),
    MINTLIFY_API_KEYS: pairList('project id:admin key, e.g. proj_b:mint_…', PROJECT_ID, apiKeyProblem),
    REDIS_URL: optional.pipe(z.url({ protocol: /^rediss?$/, error: 'expected redis:// or rediss:// URL' }).optional()),
    STORE_NAMESPACE: z
      .string()
      .trim()
      .regex(/^[A-Za-z0-9_.-]{1,64}$/, 'expected 1–64 letters, digits, dots, dashes or underscores')
      .default(DEFAULT_STORE_NAMESPACE),
    PORT: z.coerce
      .number({ error: PORT_EXPECTED })
      .int(PORT_EXPECTED)
      .min(0, PORT_EXPECTED)
      .max(65_535, PORT_EXPECTED)
      .default(DEFAULT_PORT),
    POLL_INTERVAL_MS: positiveInt(DEFAULT_POLL_INTERVAL_MS),
    POLL_MAX_INTERVAL_MS: positiveInt(DEFAULT_POLL_MAX_INTERVAL_MS),
    JOB_MAX_AGE_MS: positiveInt(DEFAULT_JOB_MAX_AGE_MS),
    AGENT_ALLOWED_USERS: idList,
    AGENT_ALLOWED_CHANNELS: idList,
    LOG_LEVEL: z.enum(LOG_LEVELS, { error: `expected one of ${LOG_LEVELS.join(', ')}` }).default('info'),
  })
  .superRefine(
    (env, ctx) => {
      for (const [name, example] of Object.entries(EXAMPLE_VALUES)) {
        if (env[name as keyof typeof env] === example) {
          ctx.addIssue({ code: 'custom', path: [name], message: STILL_EXAMPLE });
        }
      }
      if (!env.SLACK_APP_TOKEN && !env.SLACK_SIGNING_SECRET) {
        ctx.addIssue({
          code: 'custom',
          path: ['SLACK_SIGNING_SECRET'],
          message: 'required in HTTP mode (or set SLACK_APP_TOKEN for Socket Mode)',
        });
      }
      if (env.SLACK_APP_TOKEN && !env.SLACK_APP_TOKEN.startsWith('xapp-')) {
        ctx.addIssue({
          code: 'custom',
          path: ['SLACK_APP_TOKEN'],
          message: 'must be an app-level token starting with "xapp-"',
        });
      }
      // Compare the intervals only when both parsed: otherwise their own problems already say what is wrong.
      const pollParsed = !ctx.issues.some(
        (i) => i.path?.[0] === 'POLL_INTERVAL_MS' || i.path?.[0] === 'POLL_MAX_INTERVAL_MS',
      );
      if (pollParsed && env.POLL_MAX_INTERVAL_MS < env.POLL_INTERVAL_MS) {
        ctx.addIssue({ code: 'custom', path: ['POLL_MAX_INTERVAL_MS'], message: 'must be at least POLL_INTERVAL_MS' });
      }
    },
    // Run even when a field failed to parse, so every problem is reported at once, not one per restart.
    { when: () => true },
  );

export type LogLevel = (typeof LOG_LEVELS)[number];

export interface Config {
  slack: { botToken: string; signingSecret?: string; appToken?: string; apiUrl: string; port: number };
  mintlify: {
    apiKey: string;
    projectId: string;
    apiUrl: string;
    /** Channels served by another project than `projectId`. */
    channelProjects: Record<string, string>;
    /** Projects with their own admin key; the others use `apiKey`. Secrets. */
    projectKeys: Record<string, string>;
  };
  redisUrl?: string;
  /** Prefix of every store key, so several bots can share one Redis. */
  storeNamespace: string;
  pollIntervalMs: number;
  pollMaxIntervalMs: number;
  jobMaxAgeMs: number;
  allowedUsers: string[];
  allowedChannels: string[];
  logLevel: LogLevel;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  }
}

/** What to do about a configuration error, for the first-run message. */
export function nextStep(envFileExists: boolean): string {
  return envFileExists
    ? 'Next: fix these in .env (or the environment) and run `npm start` again. README, section "2. Configure", explains each variable.'
    : 'Next: copy .env.example to .env (`cp .env.example .env`), fill in your values, and run `npm start` again. README, section "2. Configure", explains each variable.';
}

/** Parses the environment. Problems name the variable and what is expected, never the value given. */
export function parseConfig(env: NodeJS.ProcessEnv): Config {
  // `PORT=` (as left by a copied .env.example) means "not set", so defaults apply.
  const set = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value.trim() !== ''));
  const result = EnvSchema.safeParse(set);
  if (!result.success) {
    throw new ConfigError(result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`));
  }
  const e = result.data;
  return {
    slack: {
      botToken: e.SLACK_BOT_TOKEN,
      ...(e.SLACK_SIGNING_SECRET && { signingSecret: e.SLACK_SIGNING_SECRET }),
      ...(e.SLACK_APP_TOKEN && { appToken: e.SLACK_APP_TOKEN }),
      apiUrl: e.SLACK_API_URL.endsWith('/') ? e.SLACK_API_URL : `${e.SLACK_API_URL}/`,
      port: e.PORT,
    },
    mintlify: {
      apiKey: e.MINTLIFY_API_KEY,
      projectId: e.MINTLIFY_PROJECT_ID,
      apiUrl: e.MINTLIFY_API_URL,
      channelProjects: e.MINTLIFY_CHANNEL_PROJECTS,
      projectKeys: e.MINTLIFY_API_KEYS,
    },
    ...(e.REDIS_URL && { redisUrl: e.REDIS_URL }),
    storeNamespace: e.STORE_NAMESPACE,
    pollIntervalMs: e.POLL_INTERVAL_MS,
    pollMaxIntervalMs: e.POLL_MAX_INTERVAL_MS,
    jobMaxAgeMs: e.JOB_MAX_AGE_MS,
    allowedUsers: e.AGENT_ALLOWED_USERS,
    allowedChannels: e.AGENT_ALLOWED_CHANNELS,
    logLevel: e.LOG_LEVEL,
  };
}

/** Loads `.env` from the working directory when present; real environment variables win. */
export function loadEnvFile(path = '.env'): void {
  if (existsSync(path)) process.loadEnvFile(path);
}
