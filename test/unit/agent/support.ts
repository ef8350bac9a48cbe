import { randomUUID } from 'node:crypto';
import type { AllMiddlewareArgs, AnyMiddlewareArgs, App, Context } from '@slack/bolt';
import type { Keyv } from 'keyv';
import { afterEach, beforeEach } from 'vitest';
import type { Turn } from '../../../src/agent/requests.js';
import { startJob } from '../../../src/agent/start-job.js';
import { WORK } from '../../../src/app/app.js';
import { buildDeps } from '../../../src/app/wiring.js';
import { parseConfig } from '../../../src/config/config.js';
import type { Deps } from '../../../src/deps.js';
import { createMetrics } from '../../../src/metrics.js';
import type { Engine } from '../../../src/queue/engine.js';
import { createMemoryEngine } from '../../../src/queue/memory.js';
import { type AccessRule, accessMiddleware } from '../../../src/slack/access.js';
import { createSlackClient } from '../../../src/slack/client.js';
import type { Budget } from '../../../src/store/budget.js';
import type { Claims } from '../../../src/store/claims.js';
import type { JobBinding, JobRecord, JobRef, JobStore } from '../../../src/store/jobs.js';
import { createStore, type Store, StoreUnavailableError } from '../../../src/store/store.js';
import { type Simulator, startSimulator } from '../../../tools/simulator/server.js';
import { BOT_ID, BOT_USER_ID, type FakeSlackApi, startFakeSlackApi } from '../../fakes/fake-slack-api.js';
import { jobBinding } from '../../fixtures/job.js';
import { CHANNEL_ID, USER_ID } from '../../fixtures/slack.js';
import { captureLogs } from '../../support/logs.js';
import { testEnv } from '../../support/test-app.js';

export interface Handed {
  kind: string;
  data: unknown;
}

export interface AgentUnit {
  deps: Deps;
  slack: FakeSlackApi;
  sim: Simulator;
  logs: ReturnType<typeof captureLogs>;
  /** What the doors handed on (`deps.dispatch`), in order: nothing runs. */
  handed: Handed[];
  /** The in-process engine behind `deps.lanes`: nothing works its lanes, so added work stays there to be read. */
  engine: Engine;
  /** The rounds handed to tracking (`deps.tracker`), in order: nothing polls. */
  tracked: JobRef[];
  /** The job states other views were told of (`deps.jobWatchers`), in order. */
  watched: JobRecord[];
}

/**
 * The app's own deps (memory store, real Mintlify and Slack clients) against the stand-in and the simulator, built
 * fresh for each test; `deps.dispatch` and `deps.tracker` only record, so a test sees exactly what is handed on.
 */
export function useAgentUnit(env: Record<string, string> = {}): () => AgentUnit {
  let unit: AgentUnit | undefined;
  beforeEach(async () => {
    const slack = await startFakeSlackApi();
    const sim = await startSimulator({ jobDurationMs: 60_000 });
    const config = parseConfig(testEnv(slack, sim.url, env));
    const logs = captureLogs();
    const metrics = createMetrics();
    const store = await createStore({ log: logs.log });
    const slackClient = createSlackClient(config, metrics, logs.log);
    const engine = createMemoryEngine({ log: logs.log });
    const parts = { log: logs.log, metrics, store, slack: slackClient, engine, work: WORK };
    const deps = buildDeps(config, { mintlifyTimeoutMs: 1_000 }, parts);
    const handed: Handed[] = [];
    deps.dispatch = async ({ kind }, data) => void handed.push({ kind, data });
    const tracked: JobRef[] = [];
    deps.tracker = { track: async (ref) => void tracked.push({ project: ref.project, jobId: ref.jobId }) };
    const watched: JobRecord[] = [];
    deps.jobWatchers?.add(async (record) => void watched.push(record));
    unit = { deps, slack, sim, logs, handed, engine, tracked, watched };
  });
  afterEach(async () => {
    await unit?.engine.close(0);
    await unit?.deps.store.close();
    await unit?.sim.close();
    await unit?.slack.close();
    unit = undefined;
  });
  return () => {
    if (!unit) throw new Error('useAgentUnit(): only inside a test');
    return unit;
  };
}

/** Bolt's context for a payload as the app's middleware leaves it: the access rule's verdict included. */
export async function contextFor(rule: AccessRule, body: Record<string, unknown>): Promise<Context> {
  const context: Context = { isEnterpriseInstall: false, botUserId: 'UBOT', botId: 'BBOT' };
  const args = { body, context, next: async () => {} } as unknown as AnyMiddlewareArgs & AllMiddlewareArgs;
  await accessMiddleware(rule, captureLogs().log)(args);
  return context;
}

/** An `ack` that records what it was called with. */
export function recordingAck() {
  const calls: unknown[] = [];
  const ack = async (response?: unknown) => void calls.push(response);
  return { ack, calls };
}

/**
 * The store as the app sees it while Redis is down: every call fails the way the Redis store's calls do. Pass it
 * (or one of its parts) in place of the real one; `createQuota(storeDown())` is a quota that cannot be counted.
 */
export function storeDown(): Store {
  const fail = async () => {
    throw new StoreUnavailableError('The store is unavailable');
  };
  // Not a thenable: `await` on a part must not call it.
  const part = new Proxy({}, { get: (_, name) => (name === 'then' ? undefined : fail) });
  const store: Store = {
    kind: 'redis',
    kv: part as Keyv,
    claims: part as Claims,
    jobs: part as JobStore,
    budget: () => part as Budget,
    ping: fail,
    scoped: () => store,
    dropScope: fail,
    close: async () => {},
  };
  return store;
}

/**
 * `userId` writes `text` in `channel` (in `threadTs`'s thread, when given): the stand-in stores it, and this is the
 * turn its door hands on (addressed: a mention or a DM; allowed by the access rule, unless overridden).
 */
export function typed(slack: FakeSlackApi, text: string, overrides: Partial<Omit<Turn, 'text' | 'ts'>> = {}): Turn {
  const channel = overrides.channel ?? CHANNEL_ID;
  const userId = overrides.userId ?? USER_ID;
  const threadTs = overrides.threadTs;
  const stored = slack.postAs(userId, channel, text, threadTs ? { threadTs } : {});
  return {
    channel,
    ts: stored.ts,
    userId,
    text,
    eventId: `Ev${randomUUID().slice(0, 8).toUpperCase()}`,
    clientMsgId: randomUUID(),
    addressed: true,
    // Addressed outside a DM is a mention (a DM needs none).
    mentionsBot: overrides.addressed !== false && !channel.startsWith('D'),
    allowed: true,
    botUserId: BOT_USER_ID,
    botId: BOT_ID,
    ...overrides,
  };
}

/** The reactions the bot put on (`+`) and took off (`-`) the message `ts`, in order. */
export function reactionsOn(slack: FakeSlackApi, ts: string): string[] {
  return slack.calls
    .filter((c) => (c.method === 'reactions.add' || c.method === 'reactions.remove') && c.args.timestamp === ts)
    .map((c) => `${c.method === 'reactions.add' ? '+' : '-'}${c.args.name}`);
}

/** The texts of what only `userId` sees (ephemerals), in order. */
export function ephemeralsFor(slack: FakeSlackApi, userId = USER_ID): string[] {
  return slack.ephemerals.filter((e) => e.user === userId).map((e) => e.text ?? '');
}

/** A message's text and blocks as one string, to look for what a person reads. */
export function readable(message: { text?: string | undefined; blocks?: unknown } | undefined): string {
  return `${message?.text ?? ''}\n${JSON.stringify(message?.blocks ?? [])}`;
}

/** A job as `startJob` leaves it: its root message posted by the bot, its thread bound in the store. */
export async function boundJob(deps: Deps, overrides: Partial<JobBinding> = {}): Promise<JobRecord> {
  const channel = overrides.channel ?? CHANNEL_ID;
  const root = await deps.slack.chat.postMessage({ channel, text: 'Working: Document the retry policy' });
  const ts = root.ts as string;
  const observed = { status: 'active', repository: 'https://github.com/acme/docs', model: 'claude' } as const;
  return deps.store.jobs.create(jobBinding({ threadTs: ts, statusTs: ts, ...overrides }), observed, deps.now());
}

/** A job `USER_ID` started with /agent in `CHANNEL_ID`, running; fails the test if it was refused. */
export async function startedJob(deps: Deps, project: string, prompt: string): Promise<JobRecord> {
  const started = await startJob(deps, { project, userId: USER_ID, channel: CHANNEL_ID, prompt });
  if (!started.ok) throw new Error(`not started: ${started.refusal.code}`);
  return started.record;
}

/** The prompts the service was asked to create jobs with, in order. */
export function createdPrompts(sim: Simulator): string[] {
  return promptsTo(sim, (path) => path.endsWith('/job'));
}

/** The instructions the service received for jobs already running (follow-ups), in order. */
export function followUpPrompts(sim: Simulator): string[] {
  return promptsTo(sim, (path) => path.endsWith('/message'));
}

function promptsTo(sim: Simulator, where: (path: string) => boolean): string[] {
  return sim.requests
    .filter((r) => r.method === 'POST' && where(r.path))
    .map((r) => (r.body as { prompt: string }).prompt);
}

type Listener = (args: never) => unknown;

/**
 * Bolt's `app` as a feature's `register` uses it: what it listens for, in order (`command /agent`,
 * `event app_mention`, …), each with its listener, to call with the arguments Bolt would pass.
 */
export function recordingApp() {
  const registered: { on: string; listener: Listener }[] = [];
  const on = (kind: string) => (what: unknown, listener: Listener) =>
    void registered.push({ on: `${kind} ${typeof what === 'string' ? what : JSON.stringify(what)}`, listener });
  const app = {
    command: on('command'),
    event: on('event'),
    shortcut: on('shortcut'),
    view: on('view'),
    action: on('action'),
    assistant: (assistant: { getMiddleware(): Listener }) =>
      void registered.push({ on: 'assistant', listener: assistant.getMiddleware() }),
  };
  const listenersOf = (what: string) =>
    registered.filter((r) => r.on === what).map((r) => r.listener as (a: unknown) => Promise<void>);
  return { app: app as unknown as App, registered, listenersOf };
}
