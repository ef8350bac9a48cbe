import { randomUUID } from 'node:crypto';
import { webApi } from '@slack/bolt';
import { parseConfig } from '../../src/config.js';
import type { Deps } from '../../src/deps.js';
import { createLogger } from '../../src/log.js';
import { createMetrics } from '../../src/metrics.js';
import { createMintlifyClient } from '../../src/mintlify/client.js';
import { createProjects } from '../../src/projects.js';
import { startSimulator } from '../../src/simulator/server.js';
import { createStore } from '../../src/store/store.js';
import { startFakeSlackApi } from '../../test/fakes/fake-slack-api.js';
import { testEnv } from '../../test/support/test-app.js';

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
  const deps: Deps = {
    config,
    log,
    metrics: createMetrics(),
    store,
    slack: new webApi.WebClient(config.slack.botToken, { slackApiUrl: config.slack.apiUrl }),
    mintlify: createMintlifyClient({ apiUrl: config.mintlify.apiUrl, keyFor: () => config.mintlify.apiKey, log }),
    projects: createProjects(config),
    instanceId: randomUUID(),
    afterAck: (task) => task(),
    background: (task) => task(),
    now: Date.now,
  };
  const close = async () => {
    await store.close();
    await sim.close();
    await slack.close();
  };
  return { deps, config, slack, sim, store, close };
}
