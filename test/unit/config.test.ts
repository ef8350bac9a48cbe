import { readFileSync } from 'node:fs';
import { parseEnv } from 'node:util';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_JOB_MAX_AGE_MS,
  DEFAULT_METRICS_PORT,
  DEFAULT_MINTLIFY_API_URL,
  DEFAULT_POLL_INTERVAL_MS,
  DEFAULT_POLL_MAX_INTERVAL_MS,
  DEFAULT_PORT,
  DEFAULT_SLACK_API_URL,
  DEFAULT_STORE_NAMESPACE,
  EXAMPLE_VALUES,
  parseConfig,
} from '../../src/config/config.js';
import { ConfigError } from '../../src/config/config-error.js';

/** Recognisable fake secrets: none of them may ever appear in an error message. */
const BOT_TOKEN = 'xoxb-fake-bot-VALUE-4242';
const SIGNING_SECRET = 'fake-signing-VALUE-4242';
const API_KEY = 'mint_fake_key_VALUE_4242';
const SECRETS = [BOT_TOKEN, SIGNING_SECRET, API_KEY, 'VALUE'];

const valid = {
  SLACK_BOT_TOKEN: BOT_TOKEN,
  SLACK_SIGNING_SECRET: SIGNING_SECRET,
  MINTLIFY_API_KEY: API_KEY,
  MINTLIFY_PROJECT_ID: 'proj_123',
};

/** Parses `env` expecting failure and returns the problems (one line each). */
function problemsOf(env: Record<string, string | undefined>): string[] {
  try {
    parseConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    const configError = error as ConfigError;
    for (const secret of SECRETS) expect(configError.message).not.toContain(secret);
    expect(configError.message.split('\n').slice(1)).toEqual(configError.problems.map((p) => `  ${p}`));
    return configError.problems;
  }
  throw new Error('expected parseConfig to throw');
}

describe('parseConfig', () => {
  it('applies defaults when only the required variables are set', () => {
    expect(parseConfig(valid)).toEqual({
      slack: {
        botToken: BOT_TOKEN,
        signingSecret: SIGNING_SECRET,
        apiUrl: DEFAULT_SLACK_API_URL,
        port: DEFAULT_PORT,
      },
      mintlify: {
        apiKey: API_KEY,
        projectId: 'proj_123',
        apiUrl: DEFAULT_MINTLIFY_API_URL,
        channelProjects: {},
        projectKeys: {},
        docsUrls: {},
      },
      metricsPort: DEFAULT_METRICS_PORT,
      redisAllowEviction: false,
      storeNamespace: DEFAULT_STORE_NAMESPACE,
      pollIntervalMs: DEFAULT_POLL_INTERVAL_MS,
      pollMaxIntervalMs: DEFAULT_POLL_MAX_INTERVAL_MS,
      jobMaxAgeMs: DEFAULT_JOB_MAX_AGE_MS,
      allowedUsers: [],
      allowedChannels: [],
      followUps: 'reply',
      allowExternal: false,
      planCard: true,
      logLevel: 'info',
      role: 'all',
      queueLockMs: 10_000,
      slackRateWindowMs: 60_000,
    });
  });

  it('reads every optional variable', () => {
    const config = parseConfig({
      ...valid,
      SLACK_APP_TOKEN: 'xapp-1-abc',
      SLACK_API_URL: 'http://127.0.0.1:9000/api',
      MINTLIFY_API_URL: 'http://127.0.0.1:9001',
      REDIS_URL: 'rediss://user:pw@redis.example:6380/2',
      STORE_NAMESPACE: 'bot-2.prod',
      PORT: '8080',
      METRICS_PORT: '9100',
      REDIS_ALLOW_EVICTION: 'true',
      POLL_INTERVAL_MS: '100',
      POLL_MAX_INTERVAL_MS: '100',
      JOB_MAX_AGE_MS: '1000',
      AGENT_ALLOWED_USERS: ' U012AB3CD , W0123 ,',
      AGENT_ALLOWED_CHANNELS: 'C01,G02',
      AGENT_FOLLOW_UPS: 'mention',
      AGENT_ALLOW_EXTERNAL: 'TRUE',
      LOG_LEVEL: 'debug',
      MINTLIFY_CHANNEL_PROJECTS: ' C0AAA:proj_b, C0BBB : proj_c ,',
      MINTLIFY_API_KEYS: 'proj_b:mint_b_key',
    });
    expect(config).toMatchObject({
      slack: { appToken: 'xapp-1-abc', apiUrl: 'http://127.0.0.1:9000/api/', port: 8080 },
      metricsPort: 9100,
      redisAllowEviction: true,
      mintlify: {
        apiUrl: 'http://127.0.0.1:9001',
        channelProjects: { C0AAA: 'proj_b', C0BBB: 'proj_c' },
        projectKeys: { proj_b: 'mint_b_key' },
        docsUrls: {},
      },
      redisUrl: 'rediss://user:pw@redis.example:6380/2',
      storeNamespace: 'bot-2.prod',
      pollIntervalMs: 100,
      pollMaxIntervalMs: 100,
      jobMaxAgeMs: 1000,
      allowedUsers: ['U012AB3CD', 'W0123'],
      allowedChannels: ['C01', 'G02'],
      followUps: 'mention',
      allowExternal: true,
      logLevel: 'debug',
    });
  });

  it('treats blank variables (as left by a copied .env.example) as unset, so defaults apply', () => {
    const blank = [
      'SLACK_API_URL',
      'MINTLIFY_API_URL',
      'REDIS_URL',
      'STORE_NAMESPACE',
      'PORT',
      'POLL_INTERVAL_MS',
      'LOG_LEVEL',
    ];
    const config = parseConfig({ ...valid, ...Object.fromEntries(blank.map((name) => [name, '  '])) });
    expect(config.slack.port).toBe(DEFAULT_PORT);
    expect(config.slack.apiUrl).toBe(DEFAULT_SLACK_API_URL);
    expect(config.pollIntervalMs).toBe(DEFAULT_POLL_INTERVAL_MS);
    expect(config.logLevel).toBe('info');
    expect(config.redisUrl).toBeUndefined();
    expect(config.storeNamespace).toBe(DEFAULT_STORE_NAMESPACE);
  });

  it('accepts Socket Mode (SLACK_APP_TOKEN) without a signing secret', () => {
    const config = parseConfig({ ...valid, SLACK_SIGNING_SECRET: undefined, SLACK_APP_TOKEN: 'xapp-1-A0-123' });
    expect(config.slack.appToken).toBe('xapp-1-A0-123');
    expect(config.slack.signingSecret).toBeUndefined();
  });

  it('lists every missing required variable, one line each, naming the variable', () => {
    expect(problemsOf({})).toEqual([
      expect.stringMatching(/^SLACK_BOT_TOKEN: required/),
      expect.stringMatching(/^MINTLIFY_API_KEY: required/),
      expect.stringMatching(/^MINTLIFY_PROJECT_ID: required/),
      expect.stringMatching(/^SLACK_SIGNING_SECRET: required in HTTP mode/),
    ]);
  });

  it('reports every problem at once, even when a field fails to parse', () => {
    const problems = problemsOf({ ...valid, SLACK_SIGNING_SECRET: undefined, SLACK_BOT_TOKEN: undefined, PORT: 'x' });
    expect(problems.map((p) => p.split(':')[0]).sort()).toEqual(['PORT', 'SLACK_BOT_TOKEN', 'SLACK_SIGNING_SECRET']);
  });

  it.each<[string, Record<string, string | undefined>, string, RegExp]>([
    ['missing bot token', { SLACK_BOT_TOKEN: undefined }, 'SLACK_BOT_TOKEN', /required/],
    ['whitespace bot token', { SLACK_BOT_TOKEN: '   ' }, 'SLACK_BOT_TOKEN', /required/],
    ['no signing secret in HTTP mode', { SLACK_SIGNING_SECRET: undefined }, 'SLACK_SIGNING_SECRET', /HTTP mode/],
    ['app token without xapp- prefix', { SLACK_APP_TOKEN: 'xoxb-VALUE' }, 'SLACK_APP_TOKEN', /"xapp-"/],
    ['an app token as the bot token', { SLACK_BOT_TOKEN: 'xapp-1-VALUE' }, 'SLACK_BOT_TOKEN', /"xoxb-"/],
    ['a word as the bot token', { SLACK_BOT_TOKEN: 'hello' }, 'SLACK_BOT_TOKEN', /"xoxb-"/],
    ['a user token as the bot token', { SLACK_BOT_TOKEN: 'xoxp-VALUE' }, 'SLACK_BOT_TOKEN', /bot token/],
    ['the example bot token', { SLACK_BOT_TOKEN: 'xoxb-...' }, 'SLACK_BOT_TOKEN', /still the example value/],
    ['the example project id', { MINTLIFY_PROJECT_ID: 'your-project-id' }, 'MINTLIFY_PROJECT_ID', /example value/],
    ['missing API key', { MINTLIFY_API_KEY: undefined }, 'MINTLIFY_API_KEY', /required/],
    ['API key without mint_ prefix', { MINTLIFY_API_KEY: 'sk_live_VALUE' }, 'MINTLIFY_API_KEY', /"mint_"/],
    ['missing project id', { MINTLIFY_PROJECT_ID: undefined }, 'MINTLIFY_PROJECT_ID', /required/],
    ['project id that is a dot segment', { MINTLIFY_PROJECT_ID: '..' }, 'MINTLIFY_PROJECT_ID', /expected a project id/],
    ['the admin key as the project id', { MINTLIFY_PROJECT_ID: API_KEY }, 'MINTLIFY_PROJECT_ID', /MINTLIFY_API_KEY/],
    [
      'the admin key as a routed project',
      { MINTLIFY_CHANNEL_PROJECTS: `C0AAA:${API_KEY}` },
      'MINTLIFY_CHANNEL_PROJECTS',
      /MINTLIFY_API_KEY/,
    ],
    ['an unknown ROLE', { ROLE: 'VALUE' }, 'ROLE', /expected one of all, web, worker$/],
    ['Slack API URL not a URL', { SLACK_API_URL: 'not a url' }, 'SLACK_API_URL', /http\(s\) URL/],
    ['Slack API URL with another scheme', { SLACK_API_URL: 'ftp://slack.test/' }, 'SLACK_API_URL', /http\(s\)/],
    ['Mintlify API URL not a URL', { MINTLIFY_API_URL: 'api.mintlify.com' }, 'MINTLIFY_API_URL', /http\(s\) URL/],
    ['Mintlify API URL javascript:', { MINTLIFY_API_URL: 'javascript:alert(1)' }, 'MINTLIFY_API_URL', /http\(s\)/],
    ['REDIS_URL with http scheme', { REDIS_URL: 'http://u:VALUE@h:6379' }, 'REDIS_URL', /redis:\/\/ or rediss:\/\//],
    ['REDIS_URL not a URL', { REDIS_URL: 'localhost:6379' }, 'REDIS_URL', /redis:\/\//],
    ['STORE_NAMESPACE with a colon', { STORE_NAMESPACE: 'a:b' }, 'STORE_NAMESPACE', /letters, digits/],
    ['STORE_NAMESPACE with a space', { STORE_NAMESPACE: 'my bot' }, 'STORE_NAMESPACE', /letters, digits/],
    ['STORE_NAMESPACE too long', { STORE_NAMESPACE: 'n'.repeat(65) }, 'STORE_NAMESPACE', /1–64/],
    ['PORT not numeric', { PORT: 'eighty' }, 'PORT', /port number/],
    ['PORT fractional', { PORT: '80.5' }, 'PORT', /port number/],
    ['PORT negative', { PORT: '-1' }, 'PORT', /port number/],
    ['PORT above 65535', { PORT: '65536' }, 'PORT', /port number/],
    ['METRICS_PORT not numeric', { METRICS_PORT: 'ninety' }, 'METRICS_PORT', /port number/],
    ['METRICS_PORT the public port', { PORT: '8080', METRICS_PORT: '8080' }, 'METRICS_PORT', /must differ from PORT/],
    ['METRICS_PORT the default public port', { METRICS_PORT: '3000' }, 'METRICS_PORT', /must differ from PORT/],
    ['POLL_INTERVAL_MS zero', { POLL_INTERVAL_MS: '0' }, 'POLL_INTERVAL_MS', /positive whole number/],
    ['POLL_INTERVAL_MS negative', { POLL_INTERVAL_MS: '-5' }, 'POLL_INTERVAL_MS', /positive whole number/],
    ['POLL_INTERVAL_MS not numeric', { POLL_INTERVAL_MS: 'soon' }, 'POLL_INTERVAL_MS', /whole number/],
    ['POLL_MAX_INTERVAL_MS zero', { POLL_MAX_INTERVAL_MS: '0' }, 'POLL_MAX_INTERVAL_MS', /positive whole number/],
    [
      'POLL_MAX_INTERVAL_MS below POLL_INTERVAL_MS',
      { POLL_INTERVAL_MS: '1000', POLL_MAX_INTERVAL_MS: '999' },
      'POLL_MAX_INTERVAL_MS',
      /at least POLL_INTERVAL_MS/,
    ],
    ['JOB_MAX_AGE_MS fractional', { JOB_MAX_AGE_MS: '1.5' }, 'JOB_MAX_AGE_MS', /whole number/],
    ['LOG_LEVEL unknown', { LOG_LEVEL: 'verbose' }, 'LOG_LEVEL', /one of debug, info, warn, error/],
    ['LOG_LEVEL wrong case', { LOG_LEVEL: 'INFO' }, 'LOG_LEVEL', /one of/],
    ['lower-case user id', { AGENT_ALLOWED_USERS: 'U012,u345' }, 'AGENT_ALLOWED_USERS', /Slack ids/],
    ['channel name instead of id', { AGENT_ALLOWED_CHANNELS: '#general' }, 'AGENT_ALLOWED_CHANNELS', /Slack ids/],
    ['ids separated by spaces', { AGENT_ALLOWED_USERS: 'U01 U02' }, 'AGENT_ALLOWED_USERS', /Slack ids/],
    ['AGENT_FOLLOW_UPS unknown', { AGENT_FOLLOW_UPS: 'always' }, 'AGENT_FOLLOW_UPS', /one of reply, mention/],
    ['AGENT_ALLOW_EXTERNAL not a boolean', { AGENT_ALLOW_EXTERNAL: 'yes' }, 'AGENT_ALLOW_EXTERNAL', /true or false/],
    [
      'a route to an empty project',
      { MINTLIFY_CHANNEL_PROJECTS: 'C0AAA:' },
      'MINTLIFY_CHANNEL_PROJECTS',
      /entry 1 \(C0AAA\): expected a project id/,
    ],
    [
      'a route without a project',
      { MINTLIFY_CHANNEL_PROJECTS: 'C0AAA' },
      'MINTLIFY_CHANNEL_PROJECTS',
      /entry 1: expected channel id:project id/,
    ],
    [
      'a channel name as a route',
      { MINTLIFY_CHANNEL_PROJECTS: '#docs:proj_b' },
      'MINTLIFY_CHANNEL_PROJECTS',
      /entry 1: expected channel id:project id/,
    ],
    [
      'a channel routed twice',
      { MINTLIFY_CHANNEL_PROJECTS: 'C0AAA:proj_b,C0AAA:proj_c' },
      'MINTLIFY_CHANNEL_PROJECTS',
      /entry 2: C0AAA appears twice/,
    ],
    [
      'a project id with a slash',
      { MINTLIFY_CHANNEL_PROJECTS: 'C0AAA:../x' },
      'MINTLIFY_CHANNEL_PROJECTS',
      /expected a project id/,
    ],
    [
      'a project key without mint_',
      { MINTLIFY_API_KEYS: 'proj_b:sk_VALUE' },
      'MINTLIFY_API_KEYS',
      /entry 1 \(proj_b\): .*"mint_"/,
    ],
    [
      'a project keyed twice',
      { MINTLIFY_API_KEYS: 'proj_b:mint_VALUE1,proj_b:mint_VALUE2' },
      'MINTLIFY_API_KEYS',
      /entry 2: proj_b appears twice/,
    ],
    [
      'a key without its project',
      { MINTLIFY_API_KEYS: 'mint_VALUE' },
      'MINTLIFY_API_KEYS',
      /entry 1: expected project id:admin key/,
    ],
    ['a docs site over http', { MINTLIFY_DOCS_URL: 'http://docs.acme.example' }, 'MINTLIFY_DOCS_URL', /https address/],
    ['a docs site with a query', { MINTLIFY_DOCS_URL: 'https://acme.example/?p=docs' }, 'MINTLIFY_DOCS_URL', /https/],
    ['a docs site with a password', { MINTLIFY_DOCS_URL: 'https://:pw@acme.example' }, 'MINTLIFY_DOCS_URL', /https/],
    [
      'a project’s docs site that is no address',
      { MINTLIFY_DOCS_URLS: 'proj_b:docs.b.example' },
      'MINTLIFY_DOCS_URLS',
      /entry 1 \(proj_b\): expected the https address/,
    ],
  ])('rejects %s with exactly one problem naming the variable', (_case, change, variable, expected) => {
    const problems = problemsOf({ ...valid, ...change });
    expect(problems).toHaveLength(1);
    const [problem] = problems;
    expect(problem?.startsWith(`${variable}`)).toBe(true);
    expect(problem).toMatch(expected);
  });

  it('reads each project’s docs site: MINTLIFY_DOCS_URL the default project’s, MINTLIFY_DOCS_URLS the others’', () => {
    const config = parseConfig({
      ...valid,
      MINTLIFY_DOCS_URL: 'https://docs.acme.example',
      MINTLIFY_DOCS_URLS: 'proj_b:https://acme.example/b-docs',
    });
    expect(config.mintlify.docsUrls).toEqual({
      proj_123: 'https://docs.acme.example',
      proj_b: 'https://acme.example/b-docs',
    });
  });

  it('one line per problem when several variables are wrong', () => {
    const problems = problemsOf({
      ...valid,
      MINTLIFY_API_KEY: 'sk_live_VALUE',
      PORT: '99999',
      LOG_LEVEL: 'loud',
      POLL_INTERVAL_MS: '-1',
    });
    expect(problems.map((p) => p.split(':')[0]).sort()).toEqual([
      'LOG_LEVEL',
      'MINTLIFY_API_KEY',
      'POLL_INTERVAL_MS',
      'PORT',
    ]);
  });

  it.each([
    ['bot token', { SLACK_BOT_TOKEN: BOT_TOKEN, MINTLIFY_PROJECT_ID: undefined }],
    ['signing secret', { SLACK_SIGNING_SECRET: SIGNING_SECRET, SLACK_APP_TOKEN: 'not-xapp-VALUE' }],
    ['wrong-prefix API key', { MINTLIFY_API_KEY: 'sk_live_totallysecret_VALUE' }],
    ['Redis password', { REDIS_URL: 'http://admin:VALUEpw@redis.internal:6379' }],
    ['app token', { SLACK_APP_TOKEN: 'xoxp-VALUE-123' }],
  ])('never echoes the %s in the error', (_case, change) => {
    // problemsOf asserts that no fake secret (all contain "VALUE") appears in the message.
    expect(problemsOf({ ...valid, ...change }).length).toBeGreaterThan(0);
  });
});

describe('.env.example', () => {
  const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

  /** The file with its commented-out alternatives (`# NAME=value`) switched on. */
  const withAlternatives = () => parseEnv(read('.env.example').replace(/^# ([A-Z][A-Z0-9_]+=)/gm, '$1'));

  it('documents every variable the configuration reads (set, or as a commented alternative), and nothing else', () => {
    const schemaVariables = [...read('src/config/config.ts').matchAll(/^ {4}([A-Z][A-Z0-9_]+): /gm)]
      .map((m) => m[1])
      .sort();
    const exampleVariables = Object.keys(withAlternatives()).sort();
    expect(schemaVariables.length).toBeGreaterThan(10);
    expect(exampleVariables).toEqual(schemaVariables);
  });

  it('sets up Socket Mode first, as the manifest does: bot and app token set, the signing secret commented out', () => {
    const example = parseEnv(read('.env.example'));
    expect(example.SLACK_BOT_TOKEN).toBe(EXAMPLE_VALUES.SLACK_BOT_TOKEN);
    expect(example.SLACK_APP_TOKEN).toBe(EXAMPLE_VALUES.SLACK_APP_TOKEN);
    expect(example.SLACK_SIGNING_SECRET).toBeUndefined();
    expect(read('manifest.yml')).toMatch(/socket_mode_enabled: true/);
    expect(read('manifest.yml')).toMatch(/- users:read/);
  });

  it('copied unedited, is refused: every placeholder named as still the example value', () => {
    for (const example of [parseEnv(read('.env.example')), withAlternatives()]) {
      const problems = problemsOf(example);
      const placeholders = Object.keys(EXAMPLE_VALUES).filter((name) => example[name] !== undefined);
      expect(problems.sort()).toEqual(
        placeholders.map((name) => `${name}: still the example value from .env.example: put in your own`).sort(),
      );
      for (const name of placeholders) expect(example[name]).toBe(EXAMPLE_VALUES[name]);
    }
  });
});

describe('parseConfig in OAuth mode (many workspaces)', () => {
  const KEY = Buffer.alloc(32, 7).toString('base64');
  const OLD_KEY = Buffer.alloc(32, 9).toString('base64');
  const oauth = {
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_CLIENT_ID: '1111.2222',
    SLACK_CLIENT_SECRET: 'client-secret-VALUE',
    SLACK_STATE_SECRET: 'state-secret-VALUE',
    SETTINGS_ENCRYPTION_KEY: KEY,
  };

  it('is on with the client id, secret and state secret and no bot token: no Mintlify variable required', () => {
    const config = parseConfig({ ...oauth, SETTINGS_ENCRYPTION_PREVIOUS_KEYS: ` ${OLD_KEY} ,` });
    expect(config.oauth).toEqual({
      clientId: '1111.2222',
      clientSecret: 'client-secret-VALUE',
      stateSecret: 'state-secret-VALUE',
      authorizeUrl: 'https://slack.com/oauth/v2/authorize',
      encryptionKey: Buffer.alloc(32, 7),
      previousEncryptionKeys: [Buffer.alloc(32, 9)],
    });
    expect(config.slack.botToken).toBe('');
    expect(config.mintlify).toMatchObject({ apiKey: '', projectId: '' });
  });

  it('stays off while SLACK_BOT_TOKEN is set: single-workspace mode, exactly as before', () => {
    expect(parseConfig({ ...valid, ...oauth }).oauth).toBeUndefined();
  });

  it('names each missing OAuth variable on its own line', () => {
    expect(problemsOf({ SLACK_SIGNING_SECRET: SIGNING_SECRET, SLACK_CLIENT_ID: '1111.2222' })).toEqual([
      expect.stringMatching(/^SLACK_CLIENT_SECRET: required in OAuth mode/),
      expect.stringMatching(/^SLACK_STATE_SECRET: required in OAuth mode/),
      expect.stringMatching(/^SETTINGS_ENCRYPTION_KEY: required in OAuth mode.*openssl rand -base64 32/),
    ]);
  });

  it.each([
    ['too short', Buffer.alloc(16, 1).toString('base64')],
    ['too long', Buffer.alloc(33, 1).toString('base64')],
    ['not base64', 'VALUE-not-base64-VALUE-not-base64-VALUE-not!'],
    ['hex instead of base64', 'ab'.repeat(32)],
  ])('stops on a SETTINGS_ENCRYPTION_KEY that is %s, with one line naming it and not its value', (_, key) => {
    const problems = problemsOf({ ...oauth, SETTINGS_ENCRYPTION_KEY: key });
    expect(problems).toEqual([expect.stringMatching(/^SETTINGS_ENCRYPTION_KEY: expected 32 random bytes, base64/)]);
    expect(problems.join('\n')).not.toContain(key);
  });

  it('names a malformed previous key by its position', () => {
    expect(problemsOf({ ...oauth, SETTINGS_ENCRYPTION_PREVIOUS_KEYS: `${OLD_KEY},VALUE` })).toEqual([
      expect.stringMatching(/^SETTINGS_ENCRYPTION_PREVIOUS_KEYS: entry 2: expected 32 random bytes/),
    ]);
  });

  it.each([
    ['MINTLIFY_API_KEY', API_KEY],
    ['MINTLIFY_PROJECT_ID', 'proj_123'],
    ['MINTLIFY_CHANNEL_PROJECTS', 'C0AAA:proj_b'],
    ['MINTLIFY_API_KEYS', 'proj_b:mint_b_VALUE'],
    ['MINTLIFY_DOCS_URL', 'https://docs.acme.example'],
  ])('refuses %s, which each workspace sets in App Home instead', (variable, value) => {
    expect(problemsOf({ ...oauth, [variable]: value })).toEqual([
      `${variable}: not used in OAuth mode (each workspace connects its own in App Home): remove it`,
    ]);
  });
});
