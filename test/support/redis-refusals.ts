import { expect } from 'vitest';
import { captureLogs } from './logs.js';
import { TEST_REDIS_URL } from './redis-probe.js';

// How the store and the queue engine must refuse a Redis they cannot use: promptly, with their own error, naming
// host:port, and never showing the password (in the error or in a log line).

const PASSWORD = 's3cretpw';

export type Connect = (redisUrl: string, log: ReturnType<typeof captureLogs>['log']) => Promise<unknown>;
type Unavailable = new (...args: never[]) => Error;

/** What `connect` was rejected with (`undefined` if it was not), and after how long. */
async function refusalOf(connect: () => Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const started = Date.now();
  const error = await connect().then(
    () => undefined,
    (e: unknown) => e,
  );
  return { error, ms: Date.now() - started };
}

/** Expects a user and password the test Redis does not accept to be refused within `withinMs`. */
export async function expectWrongPasswordRefused(
  connect: Connect,
  unavailable: Unavailable,
  withinMs: number,
): Promise<void> {
  const url = new URL(TEST_REDIS_URL);
  url.username = 'nobody-here';
  url.password = PASSWORD;
  const { error, ms } = await refusalOf(() => connect(url.href, captureLogs().log));
  expect(error).toBeInstanceOf(unavailable);
  expect((error as Error).message).toContain(`${url.hostname}:${url.port || 6379}`);
  expect((error as Error).message).not.toContain(PASSWORD);
  expect(ms).toBeLessThan(withinMs);
}

/** Expects a Redis where nothing listens to be refused within 2 s; gives the error's message for further checks. */
export async function expectUnreachableRefused(connect: Connect, unavailable: Unavailable): Promise<string> {
  const logs = captureLogs();
  const { error, ms } = await refusalOf(() => connect(`redis://user:${PASSWORD}@127.0.0.1:1`, logs.log));
  expect(error).toBeInstanceOf(unavailable);
  const { message } = error as Error;
  expect(message).toContain('127.0.0.1:1');
  expect(message).toMatch(/ECONNREFUSED/);
  expect(message).not.toContain(PASSWORD);
  expect(logs.text()).not.toContain(PASSWORD);
  expect(ms).toBeLessThan(2_000);
  return message;
}
