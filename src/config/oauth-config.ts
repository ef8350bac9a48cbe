// OAuth mode: one deployment serving every workspace that installs the app. Its variables are declared with the
// others in config.ts; this module says when the mode is on, what it requires, and what it reads.

/** Set without SLACK_BOT_TOKEN, any of these turns OAuth mode on (and then all three are required). */
export const OAUTH_VARIABLES = ['SLACK_CLIENT_ID', 'SLACK_CLIENT_SECRET', 'SLACK_STATE_SECRET'] as const;
/** A single workspace's Mintlify settings: in OAuth mode each workspace connects its own, so these would be ignored. */
const SINGLE_WORKSPACE_ONLY = [
  'MINTLIFY_API_KEY',
  'MINTLIFY_PROJECT_ID',
  'MINTLIFY_CHANNEL_PROJECTS',
  'MINTLIFY_API_KEYS',
  'MINTLIFY_DOCS_URL',
  'MINTLIFY_DOCS_URLS',
] as const;

export interface OAuthConfig {
  clientId: string;
  clientSecret: string;
  /** Signs the install's `state` (Bolt's installer), so a callback can be tied to the browser that started it. */
  stateSecret: string;
  /** Where `/slack/install` sends the person (Slack's authorize page). */
  authorizeUrl: string;
  /** Seals each workspace's secrets at rest (AES-256-GCM). Secret. */
  encryptionKey: Buffer;
  /** Earlier encryption keys: they only open what they sealed, which is sealed again with `encryptionKey`. Secret. */
  previousEncryptionKeys: Buffer[];
}

export function isOAuthMode(set: Record<string, unknown>): boolean {
  return !set.SLACK_BOT_TOKEN && OAUTH_VARIABLES.some((name) => set[name]);
}

const KEY_BYTES = 32;
const KEY_EXPECTED = 'expected 32 random bytes, base64-encoded (make one with `openssl rand -base64 32`)';

/** A 32-byte key from its base64 text (standard alphabet, padded); `undefined` when it is anything else. */
export function decodeKey(text: string): Buffer | undefined {
  const bytes = Buffer.from(text, 'base64');
  return bytes.length === KEY_BYTES && bytes.toString('base64') === text ? bytes : undefined;
}

const list = (text: string | undefined) =>
  (text ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);

type Issue = { code: 'custom'; path: string[]; message: string };
type OAuthEnv = Record<string, unknown> & {
  SLACK_CLIENT_ID?: string | undefined;
  SLACK_CLIENT_SECRET?: string | undefined;
  SLACK_STATE_SECRET?: string | undefined;
  SETTINGS_ENCRYPTION_KEY?: string | undefined;
  SETTINGS_ENCRYPTION_PREVIOUS_KEYS?: string | undefined;
};

/** What OAuth mode requires of the environment, one problem per variable, never echoing a value. */
export function oauthProblems(env: OAuthEnv): Issue[] {
  const issues: Issue[] = [];
  const problem = (name: string, message: string) => issues.push({ code: 'custom', path: [name], message });
  for (const name of OAUTH_VARIABLES) {
    if (!env[name])
      problem(name, `required in OAuth mode, with ${OAUTH_VARIABLES.filter((n) => n !== name).join(' and ')}`);
  }
  const key = env.SETTINGS_ENCRYPTION_KEY;
  if (!key)
    problem('SETTINGS_ENCRYPTION_KEY', `required in OAuth mode to encrypt each workspace's key: ${KEY_EXPECTED}`);
  else if (!decodeKey(key)) problem('SETTINGS_ENCRYPTION_KEY', KEY_EXPECTED);
  list(env.SETTINGS_ENCRYPTION_PREVIOUS_KEYS).forEach((entry, i) => {
    if (!decodeKey(entry)) problem('SETTINGS_ENCRYPTION_PREVIOUS_KEYS', `entry ${i + 1}: ${KEY_EXPECTED}`);
  });
  for (const name of SINGLE_WORKSPACE_ONLY) {
    const value = env[name];
    const set = typeof value === 'string' ? value !== '' : Object.keys(value ?? {}).length > 0;
    if (set) problem(name, 'not used in OAuth mode (each workspace connects its own in App Home): remove it');
  }
  return issues;
}

/** What OAuth mode reads, once the environment parsed. */
export function oauthConfig(env: OAuthEnv & { SLACK_OAUTH_AUTHORIZE_URL: string }): OAuthConfig {
  return {
    clientId: env.SLACK_CLIENT_ID ?? '',
    clientSecret: env.SLACK_CLIENT_SECRET ?? '',
    stateSecret: env.SLACK_STATE_SECRET ?? '',
    authorizeUrl: env.SLACK_OAUTH_AUTHORIZE_URL,
    encryptionKey: decodeKey(env.SETTINGS_ENCRYPTION_KEY ?? '') ?? Buffer.alloc(0),
    previousEncryptionKeys: list(env.SETTINGS_ENCRYPTION_PREVIOUS_KEYS).flatMap((entry) => decodeKey(entry) ?? []),
  };
}
