import { type RunningApp, type StartOptions, startApp } from '../../src/app/app.js';
import { parseConfig } from '../../src/config/config.js';
import type { FakeSlackApi } from '../fakes/fake-slack-api.js';
import { SIGNING_SECRET } from '../fakes/signed-request.js';
import { captureLogs } from './logs.js';

/** Re-exported for the suites that start the app, which wait with it. */
export { eventually } from './wait.js';

export const TEST_API_KEY = 'mint_test_0123456789secret';
export const TEST_PROJECT_ID = 'proj_test';

/** The environment a test app runs with: fakes on 127.0.0.1, an ephemeral port, fast polling. */
export function testEnv(slack: Pick<FakeSlackApi, 'apiUrl'>, simulatorUrl: string, env: Record<string, string> = {}) {
  return {
    SLACK_BOT_TOKEN: 'xoxb-test-token',
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: slack.apiUrl,
    MINTLIFY_API_KEY: TEST_API_KEY,
    MINTLIFY_PROJECT_ID: TEST_PROJECT_ID,
    MINTLIFY_API_URL: simulatorUrl,
    PORT: '0',
    METRICS_PORT: '0',
    POLL_INTERVAL_MS: '50',
    POLL_MAX_INTERVAL_MS: '200',
    LOG_LEVEL: 'debug',
    // Suites that read the status line's words pin it; the plan card, the default, is booted with this unset ('')
    // by its own suites (plan-card.test.ts).
    SLACK_PLAN_CARD: 'false',
    ...env,
  };
}

export interface TestApp {
  url: string;
  app: RunningApp;
  /** Every app of this boot: `app` alone, or the web and its workers (`splitRedis`), each with its own deps. */
  instances: readonly RunningApp[];
  logs: () => string;
  stop(): Promise<void>;
}

/** Where a running app answers Slack's requests and `/healthz` (only `/healthz` for a worker). */
export const urlOf = (app: Pick<RunningApp, 'port'>) => `http://127.0.0.1:${app.port}`;
/** Where a running app serves its operator endpoints: `/metrics` and the detailed `/healthz` (METRICS_PORT). */
export const metricsUrlOf = (app: Pick<RunningApp, 'metricsPort'>) => `http://127.0.0.1:${app.metricsPort}`;

/** Starts the real app (Bolt over HTTP, real client, real store) against the fakes. */
export async function startTestApp(
  slack: FakeSlackApi,
  simulatorUrl: string,
  options: { env?: Record<string, string>; redisUrl?: string | undefined; namespace?: string } & StartOptions = {},
): Promise<TestApp> {
  const { env, redisUrl, namespace, ...start } = options;
  const config = parseConfig(
    testEnv(slack, simulatorUrl, {
      ...env,
      ...(redisUrl && { REDIS_URL: redisUrl }),
      ...(namespace && { STORE_NAMESPACE: namespace }),
    }),
  );
  const captured = captureLogs();
  const app = await startApp(config, { log: captured.log, mintlifyTimeoutMs: 1_000, ...start });
  return { url: urlOf(app), app, instances: [app], logs: captured.text, stop: () => app.stop() };
}
