import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SECRET_KEY = 'sk_live_totallysecret123';
const BOT_TOKEN = 'xoxb-startup-test-SECRETBOT';
const SIGNING_SECRET = 'startup-test-SECRETSIGN';

/** Every variable src/config.ts reads. Passed blank unless a test sets it, so a local .env cannot fill it in. */
const CONFIG_VARS = [...readFileSync(`${ROOT}src/config.ts`, 'utf8').matchAll(/^ {4}([A-Z][A-Z0-9_]+): /gm)].map(
  (m) => m[1] ?? '',
);

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs the real entry point with exactly `vars` (plus PATH) and waits for it to exit. */
function runEntryPoint(vars: Record<string, string>): Promise<Exit> {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? '',
    ...(process.env.TMPDIR && { TMPDIR: process.env.TMPDIR }),
    ...Object.fromEntries(CONFIG_VARS.map((name) => [name, ''])),
    ...vars,
  };
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/index.ts'], { cwd: ROOT, env, stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    // A config error must stop the process long before this; if it starts instead, do not leave it running.
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

const validVars = {
  SLACK_BOT_TOKEN: BOT_TOKEN,
  SLACK_SIGNING_SECRET: SIGNING_SECRET,
  MINTLIFY_API_KEY: 'mint_startup_test_key',
  MINTLIFY_PROJECT_ID: 'proj_startup',
  // Never contacted (the process stops at configuration), but keep any traffic local all the same.
  SLACK_API_URL: 'http://127.0.0.1:9/api/',
  MINTLIFY_API_URL: 'http://127.0.0.1:9',
  PORT: '0',
};

/** The problem lines of "Invalid configuration:\n  VAR: …" on stderr. */
const problemLines = (stderr: string) =>
  stderr
    .split('\n')
    .filter((line) => line.startsWith('  '))
    .map((line) => line.trim());

describe('startup with a bad configuration', () => {
  it('knows every configuration variable (so none can leak in from a .env)', () => {
    expect(CONFIG_VARS).toContain('MINTLIFY_API_KEY');
    expect(CONFIG_VARS.length).toBeGreaterThan(10);
  });

  it('refuses a non-mint_ API key: exits non-zero, names MINTLIFY_API_KEY, never prints the value', async () => {
    const exit = await runEntryPoint({ ...validVars, MINTLIFY_API_KEY: SECRET_KEY });
    expect(exit.signal).toBeNull();
    expect(exit.code).not.toBe(0);
    expect(exit.stderr).toMatch(/^Invalid configuration:/);
    expect(problemLines(exit.stderr)).toEqual([expect.stringMatching(/^MINTLIFY_API_KEY: .*"mint_"/)]);
    for (const output of [exit.stderr, exit.stdout]) {
      expect(output).not.toContain(SECRET_KEY);
      expect(output).not.toContain('totallysecret');
    }
  });

  it('with nothing set, prints one line per missing variable', async () => {
    const exit = await runEntryPoint({});
    expect(exit.code).not.toBe(0);
    expect(problemLines(exit.stderr).map((line) => line.split(':')[0])).toEqual([
      'SLACK_BOT_TOKEN',
      'MINTLIFY_API_KEY',
      'MINTLIFY_PROJECT_ID',
      'SLACK_SIGNING_SECRET',
    ]);
    expect(exit.stdout).toBe('');
  });

  it('reports every bad value at once, one line each, without echoing secrets', async () => {
    const exit = await runEntryPoint({
      ...validVars,
      SLACK_APP_TOKEN: 'xoxb-not-an-app-token-SECRETAPP',
      PORT: 'eighty',
      LOG_LEVEL: 'loud',
      REDIS_URL: 'http://user:SECRETPW@127.0.0.1:6379',
      POLL_INTERVAL_MS: '2000',
      POLL_MAX_INTERVAL_MS: '1000',
    });
    expect(exit.code).not.toBe(0);
    expect(
      problemLines(exit.stderr)
        .map((line) => line.split(':')[0])
        .sort(),
    ).toEqual(['LOG_LEVEL', 'POLL_MAX_INTERVAL_MS', 'PORT', 'REDIS_URL', 'SLACK_APP_TOKEN']);
    expect(`${exit.stderr}${exit.stdout}`).not.toMatch(/SECRET/);
  });
});
