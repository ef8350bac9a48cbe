import type { Logger as SlackLogger, LogLevel as SlackLogLevel } from '@slack/bolt';
import type { Config, LogLevel } from './config/config.js';

export type Fields = Record<string, unknown>;

export interface Logger {
  debug(event: string, fields?: Fields): void;
  info(event: string, fields?: Fields): void;
  warn(event: string, fields?: Fields): void;
  error(event: string, fields?: Fields): void;
  /** A logger that adds `fields` (`job_id`, `project`, …) to every line it writes. */
  child(fields: Fields): Logger;
  /** A logger that also hides each of `secrets` (the configuration's, whatever their shape) in every line. */
  hiding(secrets: readonly string[]): Logger;
}

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };
// A Mintlify key: every character an admin key may hold (`env-fields.ts`, API_KEY), and `%` for one URL-encoded.
const SECRET_PATTERNS = [/mint_[A-Za-z0-9._~+/=%-]+/g, /xox[a-z]-[A-Za-z0-9-]+/g, /xapp-[A-Za-z0-9-]+/g];
// Also as Slack names them (`client_secret`, `refresh_token`), and a command's `response_url`, which posts in its channel.
const SECRET_KEYS = /^(?:\w+_)?(?:authorization|token|apikey|api_key|secret|password)$|^response_url$/i;

/** Replaces anything shaped like a Mintlify key or Slack token, wherever it hides in a string. */
export function redact(text: string): string {
  return SECRET_PATTERNS.reduce((out, pattern) => out.replace(pattern, (m) => `${m.slice(0, 5)}[redacted]`), text);
}

/** `secret` as it may appear in a line: as is, JSON-escaped, URL-encoded. */
const formsOf = (secret: string) => [secret, JSON.stringify(secret).slice(1, -1), encodeURIComponent(secret)];

/**
 * Replaces each of `forms` wherever it appears. The forms are worked out once per logger, not per line, and a line
 * is only split where a form is in it: every request writes a line (BENCHMARKS §1b).
 */
function hide(text: string, forms: readonly string[]): string {
  let out = text;
  for (const form of forms) if (out.includes(form)) out = out.split(form).join('[redacted]');
  return out;
}

/** Shorter values are not real secrets (Slack's are 32 characters or more); hiding them would garble lines. */
const HIDDEN_MIN_CHARS = 8;

/** Redis's password as REDIS_URL holds it (percent-encoded) and as it is. */
function redisPassword(redisUrl: string | undefined): string[] {
  const password = redisUrl ? new URL(redisUrl).password : '';
  try {
    return [password, decodeURIComponent(password)];
  } catch {
    return [password]; // a `%` that encodes nothing: the password is what the URL holds
  }
}

/** What the configuration holds that no log line may: tokens, secrets, admin keys, encryption keys, Redis's password. */
export function configuredSecrets(config: Config): string[] {
  const { slack, mintlify, oauth } = config;
  const keys = oauth ? [oauth.encryptionKey, ...oauth.previousEncryptionKeys].map((k) => k.toString('base64')) : [];
  return [
    slack.botToken,
    slack.signingSecret,
    slack.appToken,
    mintlify.apiKey,
    ...Object.values(mintlify.projectKeys),
    oauth?.clientSecret,
    oauth?.stateSecret,
    ...keys,
    ...redisPassword(config.redisUrl),
  ].filter((secret): secret is string => Boolean(secret));
}

/** What a value becomes in a line: hidden by its field's name, an Error as its name, message and code, a BigInt as text. */
function lineValue(key: string, value: unknown): unknown {
  if (SECRET_KEYS.test(key)) return '[redacted]';
  if (value instanceof Error)
    return { name: value.name, message: value.message, code: (value as { code?: unknown }).code };
  if (typeof value === 'bigint') return value.toString();
  return value;
}

/**
 * Whether `lineValue` would change no field: flat fields (a request's kind and times) of no secret's name. Those are
 * written without it, which JSON.stringify would otherwise call back for every field: every request writes a line.
 */
function plain(fields: Fields): boolean {
  for (const key in fields) {
    const value = fields[key];
    if ((typeof value === 'object' && value !== null) || typeof value === 'bigint' || SECRET_KEYS.test(key))
      return false;
  }
  return true;
}

function serialise(fields: Fields): string {
  try {
    return plain(fields) ? JSON.stringify(fields) : JSON.stringify(fields, lineValue);
  } catch (error) {
    // A circular field must not turn a log call into a crash: keep the event, say why the fields are missing.
    const { time, level, event } = fields;
    return JSON.stringify({ time, level, event, log_error: (error as Error).message.split('\n')[0] });
  }
}

/** One JSON line per event (`mintlify.create_job`, `poller.tick`, …), secrets redacted. */
export function createLogger(
  level: LogLevel = 'info',
  write: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
): Logger {
  return makeLogger(level, write, {}, [], []);
}

/** `hidden`: the secrets to hide; `forms`: each of them as it may appear in a line. */
function makeLogger(
  level: LogLevel,
  write: (line: string) => void,
  bound: Fields,
  hidden: readonly string[],
  forms: readonly string[],
): Logger {
  const emit =
    (at: LogLevel) =>
    (event: string, fields: Fields = {}) => {
      if (RANK[at] < RANK[level]) return;
      const line = serialise({ time: new Date().toISOString(), level: at, event, ...bound, ...fields });
      write(redact(forms.length > 0 ? hide(line, forms) : line));
    };
  return {
    debug: emit('debug'),
    info: emit('info'),
    warn: emit('warn'),
    error: emit('error'),
    child: (fields) => makeLogger(level, write, { ...bound, ...fields }, hidden, forms),
    hiding: (secrets) => {
      const more = secrets.filter((secret) => secret.length >= HIDDEN_MIN_CHARS);
      const all = [...new Set([...hidden, ...more])];
      return makeLogger(level, write, bound, all, [...new Set(all.flatMap(formsOf))]);
    },
  };
}

/** Adapts our logger to the interface Bolt and the Slack Web API client expect. */
export function toSlackLogger(log: Logger, level: LogLevel): SlackLogger {
  const text = (args: unknown[]) => ({ message: args.map(sdkText).join(' ') });
  // Bolt and the Web API client log at debug on every request: below the level, no text is built (BENCHMARKS §1b).
  const at =
    (to: LogLevel) =>
    (...args: unknown[]) => {
      if (RANK[to] >= RANK[level]) log[to]('slack.sdk', text(args));
    };
  return {
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    setLevel: () => {},
    getLevel: () => level as SlackLogLevel,
    setName: () => {},
  };
}

/**
 * One argument of an SDK log call. Socket Mode logs each payload it receives as JSON after a few words: its fields are
 * hidden by name as ours are, so what a person typed in the connect form's `api_key` field is hidden whatever its
 * shape (a key pasted by mistake is no Mintlify key, so no pattern knows it).
 */
function sdkText(arg: unknown): string {
  const text = arg instanceof Error ? arg.message : String(arg);
  const json = text.indexOf('{');
  if (json === -1) return text;
  try {
    const payload = JSON.stringify(JSON.parse(text.slice(json)), (key, value: unknown) =>
      SECRET_KEYS.test(key) ? '[redacted]' : value,
    );
    return `${text.slice(0, json)}${payload}`;
  } catch {
    return text; // not JSON after all: the patterns and the configured secrets still apply
  }
}
