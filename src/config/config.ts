import { z } from 'zod';
import { PROJECT_ID } from '../mintlify/schemas.js';
import { ConfigError } from './config-error.js';
import {
  API_KEY_EXPECTED,
  apiKeyProblem,
  CHANNEL_ID,
  docsSites,
  docsUrlFields,
  flag,
  flagOn,
  idList,
  missingSingleWorkspace,
  optional,
  pairList,
  port,
  portProblems,
  positiveInt,
  projectIdField,
  projectIdProblem,
  redisUrlField,
  url,
} from './env-fields.js';
import { isOAuthMode, type OAuthConfig, oauthConfig, oauthProblems } from './oauth-config.js';

export const DEFAULT_SLACK_API_URL = 'https://slack.com/api/';
export const DEFAULT_SLACK_AUTHORIZE_URL = 'https://slack.com/oauth/v2/authorize';
export const DEFAULT_MINTLIFY_API_URL = 'https://api.mintlify.com';
export const DEFAULT_PORT = 3000;
/** The operator's port (`/metrics`), never the public one: the usual Prometheus exporter port. */
export const DEFAULT_METRICS_PORT = 9464;
export const DEFAULT_POLL_INTERVAL_MS = 5_000;
export const DEFAULT_POLL_MAX_INTERVAL_MS = 60_000;
export const DEFAULT_STORE_NAMESPACE = 'mintlify-slack';
export const DEFAULT_JOB_MAX_AGE_MS = 24 * 60 * 60 * 1000;
/** A worker that dies holding a job loses it to another worker within about 1.5 × this (the queue engine's lock). */
export const DEFAULT_QUEUE_LOCK_MS = 10_000;
/** Slack counts Web API calls per method per workspace over a minute; tests shorten it with the stand-in's. */
export const DEFAULT_SLACK_RATE_WINDOW_MS = 60_000;
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
/** What a process does: everything (one process), receive and acknowledge Slack (`web`), or do the work (`worker`). */
export const ROLES = ['all', 'web', 'worker'] as const;
/** In a job's own thread, any reply steers it (`reply`), or only one that mentions the bot (`mention`). */
export const FOLLOW_UPS = ['reply', 'mention'] as const;

/** The placeholders `.env.example` ships with: a copied, unedited file must not start a bot. */
export const EXAMPLE_VALUES: Readonly<Record<string, string>> = {
  SLACK_BOT_TOKEN: 'xoxb-...',
  SLACK_APP_TOKEN: 'xapp-...',
  SLACK_SIGNING_SECRET: 'your-signing-secret',
  MINTLIFY_API_KEY: 'mint_...',
  MINTLIFY_PROJECT_ID: 'your-project-id',
};
export const STILL_EXAMPLE = 'still the example value from .env.example: put in your own';
/** Every variable the app reads, with its parser: docs/configuration.md documents each (test/unit/config-docs.test.ts). */
export const EnvSchema = z
  .object({
    // Required unless in OAuth mode (checked below, in that order, so the problems read as the file does).
    SLACK_BOT_TOKEN: optional.refine((v) => v === undefined || v.startsWith('xoxb-'), {
      message: 'must be a bot token starting with "xoxb-" (OAuth & Permissions → Bot User OAuth Token)',
    }),
    SLACK_SIGNING_SECRET: optional,
    SLACK_APP_TOKEN: optional,
    SLACK_API_URL: url(DEFAULT_SLACK_API_URL),
    // Many workspaces (OAuth mode): checked in oauth-config.ts, read only when SLACK_BOT_TOKEN is not set.
    SLACK_CLIENT_ID: optional,
    SLACK_CLIENT_SECRET: optional,
    SLACK_STATE_SECRET: optional,
    SLACK_OAUTH_AUTHORIZE_URL: url(DEFAULT_SLACK_AUTHORIZE_URL),
    SETTINGS_ENCRYPTION_KEY: optional,
    SETTINGS_ENCRYPTION_PREVIOUS_KEYS: optional,
    MINTLIFY_API_KEY: optional.refine((v) => v === undefined || !apiKeyProblem(v), {
      message: API_KEY_EXPECTED,
    }),
    MINTLIFY_PROJECT_ID: projectIdField,
    MINTLIFY_API_URL: url(DEFAULT_MINTLIFY_API_URL),
    MINTLIFY_CHANNEL_PROJECTS: pairList('channel id:project id, e.g. C0AAA:proj_b', CHANNEL_ID, projectIdProblem),
    MINTLIFY_API_KEYS: pairList('project id:admin key, e.g. proj_b:mint_…', PROJECT_ID, apiKeyProblem),
    MINTLIFY_DOCS_URL: docsUrlFields.own,
    MINTLIFY_DOCS_URLS: docsUrlFields.others,
    REDIS_URL: redisUrlField,
    REDIS_ALLOW_EVICTION: flag,
    STORE_NAMESPACE: z
      .string()
      .trim()
      .regex(/^[A-Za-z0-9_.-]{1,64}$/, 'expected 1–64 letters, digits, dots, dashes or underscores')
      .default(DEFAULT_STORE_NAMESPACE),
    PORT: port(DEFAULT_PORT),
    METRICS_PORT: port(DEFAULT_METRICS_PORT),
    POLL_INTERVAL_MS: positiveInt(DEFAULT_POLL_INTERVAL_MS),
    POLL_MAX_INTERVAL_MS: positiveInt(DEFAULT_POLL_MAX_INTERVAL_MS),
    JOB_MAX_AGE_MS: positiveInt(DEFAULT_JOB_MAX_AGE_MS),
    QUEUE_LOCK_MS: positiveInt(DEFAULT_QUEUE_LOCK_MS).pipe(z.number().min(1_000, 'expected at least 1000 (1 s)')),
    SLACK_RATE_WINDOW_MS: positiveInt(DEFAULT_SLACK_RATE_WINDOW_MS),
    AGENT_ALLOWED_USERS: idList,
    AGENT_ALLOWED_CHANNELS: idList,
    AGENT_FOLLOW_UPS: z.enum(FOLLOW_UPS, { error: `expected one of ${FOLLOW_UPS.join(', ')}` }).default('reply'),
    AGENT_ALLOW_EXTERNAL: flag,
    SLACK_PLAN_CARD: flagOn,
    LOG_LEVEL: z.enum(LOG_LEVELS, { error: `expected one of ${LOG_LEVELS.join(', ')}` }).default('info'),
    ROLE: z.enum(ROLES, { error: `expected one of ${ROLES.join(', ')}` }).default('all'),
  })
  .superRefine(
    (env, ctx) => {
      const problems = isOAuthMode(env) ? oauthProblems(env) : missingSingleWorkspace(env);
      for (const issue of problems) ctx.addIssue(issue);
      for (const [name, example] of Object.entries(EXAMPLE_VALUES)) {
        if (env[name as keyof typeof env] === example) {
          ctx.addIssue({ code: 'custom', path: [name], message: STILL_EXAMPLE });
        }
      }
      // Only a ROLE that parsed: an unknown one already has its problem.
      if ((env.ROLE === 'web' || env.ROLE === 'worker') && !env.REDIS_URL) {
        ctx.addIssue({
          code: 'custom',
          path: ['ROLE'],
          message: `${env.ROLE} needs REDIS_URL: web and worker processes share their work through Redis`,
        });
      }
      if (env.ROLE !== 'worker' && !env.SLACK_APP_TOKEN && !env.SLACK_SIGNING_SECRET) {
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
      for (const issue of portProblems(env)) ctx.addIssue(issue);
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
export type Role = (typeof ROLES)[number];
export type FollowUps = (typeof FOLLOW_UPS)[number];

export interface Config {
  /** `botToken` is `''` in OAuth mode: each workspace's token comes from its installation. */
  slack: { botToken: string; signingSecret?: string; appToken?: string; apiUrl: string; port: number };
  /** `apiKey` and `projectId` are `''` in OAuth mode: each workspace connects its own from App Home. */
  mintlify: {
    apiKey: string;
    projectId: string;
    apiUrl: string;
    /** Channels served by another project than `projectId`. */
    channelProjects: Record<string, string>;
    /** Projects with their own admin key; the others use `apiKey`. Secrets. */
    projectKeys: Record<string, string>;
    docsUrls: Record<string, string>; // each project's docs site: links to it are unfurled (src/unfurls/)
  };
  /** The operator's port: `/metrics` and the detailed `/healthz`; the public port (`slack.port`) never serves them. */
  metricsPort: number;
  redisUrl?: string;
  /** Start on a Redis whose maxmemory-policy may evict keys (refused otherwise). */
  redisAllowEviction: boolean;
  /** Prefix of every store key, so several bots can share one Redis. */
  storeNamespace: string;
  pollIntervalMs: number;
  pollMaxIntervalMs: number;
  jobMaxAgeMs: number;
  /** The queue engine's job lock on Redis: how soon a dead worker's job moves to another (see DEFAULT_QUEUE_LOCK_MS). */
  queueLockMs: number;
  /** Slack's rate-limit window (a minute): the app's Slack budgets and the elapsed-time refresh count in it. */
  slackRateWindowMs: number;
  allowedUsers: string[];
  allowedChannels: string[];
  /** Who steers a job in its own thread (docs/agent.md#who-steers-a-job). */
  followUps: FollowUps;
  /** People of another organisation (Slack Connect) may start and steer jobs. */
  allowExternal: boolean;
  /** A job's root is a plan card (`chat.startStream`, then `chat.update`) where Slack streams; `false`: the status line. */
  planCard: boolean;
  logLevel: LogLevel;
  role: Role;
  /** Set in OAuth mode: one deployment serving every workspace that installs the app. */
  oauth?: OAuthConfig;
}

/** The variables that are set: `PORT=` (as left by a copied .env.example) means "not set", so defaults apply. */
export function setVariables(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1].trim() !== ''),
  );
}

/** Parses the environment. Problems name the variable and what is expected, never the value given. */
export function parseConfig(env: NodeJS.ProcessEnv): Config {
  const set = setVariables(env);
  const result = EnvSchema.safeParse(set);
  if (!result.success) {
    throw new ConfigError(result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`));
  }
  const e = result.data;
  return {
    slack: {
      botToken: e.SLACK_BOT_TOKEN ?? '',
      ...(e.SLACK_SIGNING_SECRET && { signingSecret: e.SLACK_SIGNING_SECRET }),
      ...(e.SLACK_APP_TOKEN && { appToken: e.SLACK_APP_TOKEN }),
      apiUrl: e.SLACK_API_URL.endsWith('/') ? e.SLACK_API_URL : `${e.SLACK_API_URL}/`,
      port: e.PORT,
    },
    mintlify: {
      apiKey: e.MINTLIFY_API_KEY ?? '',
      projectId: e.MINTLIFY_PROJECT_ID ?? '',
      apiUrl: e.MINTLIFY_API_URL,
      channelProjects: e.MINTLIFY_CHANNEL_PROJECTS,
      projectKeys: e.MINTLIFY_API_KEYS,
      docsUrls: docsSites(e.MINTLIFY_PROJECT_ID, e.MINTLIFY_DOCS_URL, e.MINTLIFY_DOCS_URLS),
    },
    metricsPort: e.METRICS_PORT,
    ...(e.REDIS_URL && { redisUrl: e.REDIS_URL }),
    redisAllowEviction: e.REDIS_ALLOW_EVICTION,
    storeNamespace: e.STORE_NAMESPACE,
    pollIntervalMs: e.POLL_INTERVAL_MS,
    pollMaxIntervalMs: e.POLL_MAX_INTERVAL_MS,
    jobMaxAgeMs: e.JOB_MAX_AGE_MS,
    queueLockMs: e.QUEUE_LOCK_MS,
    slackRateWindowMs: e.SLACK_RATE_WINDOW_MS,
    allowedUsers: e.AGENT_ALLOWED_USERS,
    allowedChannels: e.AGENT_ALLOWED_CHANNELS,
    followUps: e.AGENT_FOLLOW_UPS,
    allowExternal: e.AGENT_ALLOW_EXTERNAL,
    planCard: e.SLACK_PLAN_CARD,
    logLevel: e.LOG_LEVEL,
    role: e.ROLE,
    ...(isOAuthMode(set) && { oauth: oauthConfig(e) }),
  };
}
