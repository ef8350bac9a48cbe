import { describe, expect, it } from 'vitest';
import type { LogLevel } from '../../src/config/config.js';
import { parseConfig } from '../../src/config/config.js';
import { apiKeyProblem } from '../../src/config/env-fields.js';
import { configuredSecrets, createLogger, redact, toSlackLogger } from '../../src/log.js';

const MINT_KEY = 'mint_live_Abc123_def-456';
const BOT_TOKEN = 'xoxb-1234-5678-AbCdEf';
const APP_TOKEN = 'xapp-1-A012-3456-abcdef';
const USER_TOKEN = 'xoxp-9999-8888-zz';

function capture(level: LogLevel = 'debug') {
  const lines: string[] = [];
  const log = createLogger(level, (line) => lines.push(line));
  const parsed = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  return { log, lines, parsed, text: () => lines.join('\n') };
}

describe('redact', () => {
  it.each([
    ['a Mintlify key', `key=${MINT_KEY} end`, 'key=mint_[redacted] end'],
    ['a bot token', `Bearer ${BOT_TOKEN}`, 'Bearer xoxb-[redacted]'],
    ['an app token', `token:${APP_TOKEN}.`, 'token:xapp-[redacted].'],
    ['a user token', `(${USER_TOKEN})`, '(xoxp-[redacted])'],
    ['several secrets in one string', `${MINT_KEY} and ${BOT_TOKEN}`, 'mint_[redacted] and xoxb-[redacted]'],
    ['a secret inside a URL', `https://x.test/?k=${MINT_KEY}&a=1`, 'https://x.test/?k=mint_[redacted]&a=1'],
  ])('hides %s', (_case, input, expected) => {
    expect(redact(input)).toBe(expected);
  });

  // Every key the connect modal and MINTLIFY_API_KEY(S) accept (env-fields.ts), hidden whole wherever it sits.
  it.each(['mint_live.4f1c', 'mint_a~b+c/d-e_f', 'mint_YWJjZA==', 'mint_x.y.z', 'mint_a%2Fb'])(
    'hides all of the admin key %j',
    (key) => {
      expect(apiKeyProblem(key.replace('%2F', '/'))).toBeUndefined();
      for (const around of [`"${key}"`, `key=${key}&x`, `${key}.`, `"value":"${key}"`]) {
        expect(redact(around)).not.toContain(key.slice(5));
      }
    },
  );

  it.each(['mintlify.create_job', 'xoxo hugs', 'a plain sentence', 'xapp without dash'])('leaves %j alone', (text) => {
    expect(redact(text)).toBe(text);
  });
});

describe('createLogger', () => {
  it('writes one JSON line per event with time, level and event', () => {
    const { log, parsed, lines } = capture();
    log.info('mintlify.create_job', { job_id: 'j1', duration_ms: 12 });
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain('\n');
    expect(parsed()[0]).toEqual({
      time: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      level: 'info',
      event: 'mintlify.create_job',
      job_id: 'j1',
      duration_ms: 12,
    });
  });

  it('redacts secrets inside strings, nested objects, arrays and error messages', () => {
    const { log, text, parsed } = capture();
    log.error('thing.failed', {
      message: `calling with ${MINT_KEY}`,
      nested: { deeper: { note: `bot ${BOT_TOKEN}` }, list: [`app ${APP_TOKEN}`] },
      error: new Error(`401 for ${MINT_KEY}`),
    });
    for (const secret of [MINT_KEY, BOT_TOKEN, APP_TOKEN]) expect(text()).not.toContain(secret);
    const [line] = parsed();
    expect(line).toMatchObject({
      message: 'calling with mint_[redacted]',
      nested: { deeper: { note: 'bot xoxb-[redacted]' }, list: ['app xapp-[redacted]'] },
      error: { name: 'Error', message: '401 for mint_[redacted]' },
    });
  });

  it('redacts secrets in the event name too', () => {
    const { log, text } = capture();
    log.info(`odd.${BOT_TOKEN}`);
    expect(text()).not.toContain(BOT_TOKEN);
  });

  it.each([
    ...['authorization', 'Authorization', 'token', 'TOKEN', 'apiKey', 'api_key', 'secret', 'password'],
    // As Slack names them in an OAuth exchange and in a command's payload (a response_url posts in its channel).
    ...['client_secret', 'refresh_token', 'access_token', 'response_url'],
  ])('replaces the whole value of a field named %s, at any depth', (key) => {
    const { log, parsed, text } = capture();
    log.info('request', { [key]: 'plain-looking-value', headers: { [key]: { any: 'shape' } } });
    expect(text()).not.toContain('plain-looking-value');
    expect(text()).not.toContain('shape');
    expect(parsed()[0]).toMatchObject({ [key]: '[redacted]', headers: { [key]: '[redacted]' } });
  });

  it('hides a secret-named field and writes a BigInt as text in a line of flat fields too', () => {
    const { log, parsed, text } = capture();
    log.info('slack.request', { kind: '/visitors', response_url: 'https://hooks.example/T1/B1/abc', rows: 2n });
    expect(text()).not.toContain('hooks.example');
    expect(parsed()[0]).toMatchObject({ kind: '/visitors', response_url: '[redacted]', rows: '2' });
    log.info('slack.request', { kind: '/visitors', ack_ms: 0.4, outcome: 'ok', duration_ms: 1, gone: undefined });
    expect(parsed()[1]).toEqual({
      time: expect.any(String),
      level: 'info',
      event: 'slack.request',
      kind: '/visitors',
      ack_ms: 0.4,
      outcome: 'ok',
      duration_ms: 1,
    });
  });

  it('keeps fields that only name secrets in passing (counts)', () => {
    const { log, parsed } = capture();
    log.info('secrets.checked', { sealed_with_earlier_keys: 2, tokens_checked: 3 });
    expect(parsed()[0]).toMatchObject({ sealed_with_earlier_keys: 2, tokens_checked: 3 });
  });

  it('keeps error code alongside name and message', () => {
    const { log, parsed } = capture();
    const error = Object.assign(new Error('connect refused'), { code: 'ECONNREFUSED' });
    log.warn('store.redis_error', { error });
    expect(parsed()[0]?.error).toEqual({ name: 'Error', message: 'connect refused', code: 'ECONNREFUSED' });
  });

  it('never throws on fields JSON cannot represent (circular, BigInt)', () => {
    const { log, parsed } = capture();
    const circular: Record<string, unknown> = { name: 'loop' };
    circular.self = circular;
    expect(() => log.error('weird.circular', { circular })).not.toThrow();
    expect(() => log.info('weird.bigint', { n: 10n })).not.toThrow();
    const [first, second] = parsed();
    expect(first).toMatchObject({ level: 'error', event: 'weird.circular', log_error: expect.any(String) });
    expect(second).toMatchObject({ event: 'weird.bigint', n: '10' });
  });

  it.each<[LogLevel, string[]]>([
    ['debug', ['debug', 'info', 'warn', 'error']],
    ['info', ['info', 'warn', 'error']],
    ['warn', ['warn', 'error']],
    ['error', ['error']],
  ])('at level %s writes only %j', (level, expected) => {
    const { log, parsed } = capture(level);
    log.debug('e');
    log.info('e');
    log.warn('e');
    log.error('e');
    expect(parsed().map((line) => line.level)).toEqual(expected);
  });

  it('child loggers add their fields (job_id, project) to every line, nest, and still redact', () => {
    const { log, parsed } = capture('info');
    const job = log.child({ project: 'docs', job_id: 'j1' });
    job.info('poller.outcome_posted', { outcome: 'pull_request' });
    job.child({ round: 2 }).warn('poller.post_failed', { note: `with ${BOT_TOKEN}` });
    job.debug('hidden');
    log.info('plain');
    expect(parsed()).toEqual([
      expect.objectContaining({
        event: 'poller.outcome_posted',
        project: 'docs',
        job_id: 'j1',
        outcome: 'pull_request',
      }),
      expect.objectContaining({ event: 'poller.post_failed', job_id: 'j1', round: 2, note: 'with xoxb-[redacted]' }),
      expect.not.objectContaining({ job_id: 'j1' }),
    ]);
  });

  it('hides the secrets it is given, whatever their shape, as is, JSON-escaped and URL-encoded', () => {
    const { log, text } = capture();
    const secrets = ['0f1e2d3c4b5a69788796a5b4c3d2e1f0', 'ab+cd/ef"gh==', 'short'];
    const hiding = log.hiding(secrets).child({ job_id: 'j1' });
    hiding.debug('slack.sdk', { message: `http request body: {"client_secret":"${secrets[0]}"}` });
    hiding.info('odd', { url: `https://x.test/?s=${encodeURIComponent(secrets[1] ?? '')}`, raw: secrets[1] });
    hiding.info('short', { note: 'a short value is not hidden' });
    expect(text()).not.toContain(secrets[0]);
    expect(text()).not.toContain('ab+cd');
    expect(text()).not.toContain('ab%2Bcd');
    expect(text()).toContain('a short value');
    log.info('unhidden', { raw: secrets[0] });
    expect(text()).toContain(secrets[0]); // only the logger asked to hide them does
  });

  it('knows every secret of the configuration: tokens, signing and client secrets, keys', () => {
    const env = {
      SLACK_CLIENT_ID: '1.2',
      SLACK_CLIENT_SECRET: '0f1e2d3c4b5a69788796a5b4c3d2e1f0',
      SLACK_STATE_SECRET: 'state-secret-value',
      SLACK_SIGNING_SECRET: 'signing-secret-value',
      SETTINGS_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'),
      SETTINGS_ENCRYPTION_PREVIOUS_KEYS: Buffer.alloc(32, 2).toString('base64'),
    };
    expect(configuredSecrets(parseConfig(env)).sort()).toEqual(
      [
        env.SLACK_CLIENT_SECRET,
        env.SLACK_STATE_SECRET,
        env.SLACK_SIGNING_SECRET,
        env.SETTINGS_ENCRYPTION_KEY,
        env.SETTINGS_ENCRYPTION_PREVIOUS_KEYS,
      ].sort(),
    );
    const single = { SLACK_BOT_TOKEN: BOT_TOKEN, SLACK_APP_TOKEN: APP_TOKEN, MINTLIFY_API_KEY: MINT_KEY };
    const more = { ...single, MINTLIFY_PROJECT_ID: 'p', MINTLIFY_API_KEYS: 'proj_b:mint_b_key_value' };
    expect(configuredSecrets(parseConfig(more)).sort()).toEqual(
      [BOT_TOKEN, APP_TOKEN, MINT_KEY, 'mint_b_key_value'].sort(),
    );
    // Redis's password, as the URL holds it (percent-encoded) and as it is.
    const redis = { ...more, REDIS_URL: 'rediss://default:s3cret%2Fpass@redis.example:6380/2' };
    expect(configuredSecrets(parseConfig(redis))).toEqual(expect.arrayContaining(['s3cret%2Fpass', 's3cret/pass']));
  });

  it('defaults to info', () => {
    const lines: string[] = [];
    const log = createLogger(undefined, (line) => lines.push(line));
    log.debug('hidden');
    log.info('shown');
    expect(lines.map((line) => (JSON.parse(line) as { event: string }).event)).toEqual(['shown']);
  });
});

describe('toSlackLogger', () => {
  it('forwards SDK messages as slack.sdk events, redacted, under our level filter', () => {
    const { log, parsed } = capture('info');
    const slack = toSlackLogger(log, 'info');
    slack.debug('dropped');
    slack.warn('token', BOT_TOKEN, 'rejected');
    slack.error(new Error(`bad ${APP_TOKEN}`));
    expect(parsed()).toEqual([
      expect.objectContaining({ level: 'warn', event: 'slack.sdk', message: 'token xoxb-[redacted] rejected' }),
      expect.objectContaining({ level: 'error', event: 'slack.sdk', message: 'bad xapp-[redacted]' }),
    ]);
    expect(slack.getLevel()).toBe('info');
  });

  it('hides by name the fields of a payload the SDK logs as JSON (a Socket Mode envelope), whatever their shape', () => {
    const { log, parsed } = capture('debug');
    const typed = { type: 'plain_text_input', value: 'sk_live_51Hx9QeLkD3f7a2b' };
    const envelope = { payload: { view: { state: { values: { api_key: { value: typed } } } } } };
    toSlackLogger(log, 'debug').debug(`Received a message on the WebSocket: ${JSON.stringify(envelope)}`);
    toSlackLogger(log, 'debug').debug('not JSON after all: {oops');
    const [line, plain] = parsed();
    expect(JSON.stringify(line)).not.toContain('sk_live');
    expect(line?.message).toBe(
      'Received a message on the WebSocket: {"payload":{"view":{"state":{"values":{"api_key":"[redacted]"}}}}}',
    );
    expect(plain?.message).toBe('not JSON after all: {oops');
  });

  it('does not build the text of an SDK message below the level (Bolt logs at debug on every request)', () => {
    const { log } = capture('info');
    let built = 0;
    const arg = {
      toString() {
        built++;
        return 'payload';
      },
    };
    toSlackLogger(log, 'info').debug('parsed', arg);
    expect(built).toBe(0);
    toSlackLogger(log, 'debug').debug('parsed', arg);
    expect(built).toBe(1);
  });
});
