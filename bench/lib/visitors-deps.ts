import { randomUUID } from 'node:crypto';
import { WORK } from '../../src/app/app.js';
import { buildDeps } from '../../src/app/wiring.js';
import { parseConfig } from '../../src/config/config.js';
import { createLogger } from '../../src/log.js';
import { createMetrics } from '../../src/metrics.js';
import { createMemoryEngine } from '../../src/queue/memory.js';
import { createSlackClient } from '../../src/slack/client.js';
import { createStore } from '../../src/store/store.js';
import { startFakeSlackApi } from '../../test/fakes/fake-slack-api.js';
import { testEnv } from '../../test/support/test-app.js';
import { startSimulator } from '../../tools/simulator/server.js';

/**
 * The app's deps built directly (memory store, real Mintlify client, Slack client pointed at the stand-in) beside a
 * simulator with `pathCount` pages: for benchmarks that call one feature function, not the whole app.
 */
export async function startVisitorsDeps(pathCount: number) {
  const slack = await startFakeSlackApi();
  const sim = await startSimulator({ pathCount });
  const config = parseConfig(testEnv(slack, sim.url, { LOG_LEVEL: 'info' }));
  const log = createLogger('warn', () => {});
  const store = await createStore({ log, namespace: `bench-${randomUUID().slice(0, 8)}` });
  const metrics = createMetrics();
  const engine = createMemoryEngine({ log });
  const slackClient = createSlackClient(config, metrics, log);
  const deps = buildDeps(config, {}, { log, metrics, store, slack: slackClient, engine, work: WORK });
  const close = async () => {
    await engine.close(0);
    await store.close();
    await sim.close();
    await slack.close();
  };
  return { deps, config, slack, sim, store, close };
}
