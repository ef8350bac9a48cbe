import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import type { StartOptions } from '../../src/app/app.js';
import { type Simulator, type SimulatorOptions, startSimulator } from '../../tools/simulator/server.js';
import { type SocketModeStandin, startSocketModeStandin } from '../../tools/slack-standin/index.js';
import { type FakeSlackApi, startFakeSlackApi } from '../fakes/fake-slack-api.js';
import { type AppProcess, startAppProcess } from './app-process.js';
import { dropNamespace, memoryStore, type StoreKind, testNamespace } from './redis.js';
import { Steps } from './steps.js';
import { eventually, startTestApp, type TestApp, testEnv } from './test-app.js';

export interface HarnessOptions {
  /** The store every boot uses unless it says otherwise (one of `storeKinds`); memory when left out. */
  store?: StoreKind;
  /** The simulator each test starts with; a function gives each test a fresh value (a clock, say). */
  simulator?: SimulatorOptions | (() => SimulatorOptions);
  /** The Slack side: `socketMode` adds the stand-in's Socket Mode server and boots the app on it (no HTTP). */
  slack?: { socketMode?: boolean };
  /** Environment every boot and spawn starts from; a boot's own `env` is laid over it. */
  env?: Record<string, string>;
  /** Start options every boot starts from (Slack retry timing, a clock, digest schedulers every few ms…). */
  start?: StartOptions;
  /**
   * Boot the app before each test (or once, with `per: 'file'`); a test that needs another configuration calls
   * `restart(options)`. Otherwise each test calls `boot()` itself.
   */
  boot?: boolean;
  /**
   * `'test'` (the default): a fresh stand-in, simulator, namespace and app for every test. `'file'`: one set
   * for all the tests of the file, for suites whose tests are independent of what the others leave behind.
   */
  per?: 'test' | 'file';
}

export interface BootOptions extends Omit<StartOptions, 'store'> {
  env?: Record<string, string>;
  /** Another store for this boot (a file mixing memory and Redis); the namespace stays the test's. */
  store?: StoreKind;
  /** Another Redis than the store kind's (a private `redis-server`), under the test's namespace. */
  redisUrl?: string;
  /** Where this boot finds Mintlify instead of the simulator (a stub, a closed port). */
  mintlifyUrl?: string;
}

/**
 * The Slack stand-in, the Mintlify simulator and the real app for the tests of one file: started before each
 * test (or once per file), torn down after it by the harness itself (every app booted, every process spawned,
 * the stand-ins, and the Redis namespace). A Redis store is skipped where Redis is unreachable (global setup
 * fails the run instead under CI=true). Call at describe level; the steps tests repeat are its methods.
 */
export function useHarness(options: HarnessOptions = {}): Harness {
  const harness = new Harness(options);
  const available = (options.store ?? memoryStore).available;
  const setUp = async () => {
    await harness.setUp();
    if (options.boot) await harness.boot();
  };
  beforeEach((context) => {
    if (!available) context.skip();
  });
  if (options.per === 'file') {
    beforeAll(async () => {
      if (available) await setUp();
    });
    afterAll(() => harness.tearDown());
  } else {
    beforeEach(setUp);
    afterEach(() => harness.tearDown());
  }
  return harness;
}

export class Harness extends Steps {
  #slack: FakeSlackApi | undefined;
  #sim: Simulator | undefined;
  #socket: SocketModeStandin | undefined;
  #namespace = '';
  /** Whether anything ran on the shared test Redis under this namespace (its keys are deleted at teardown). */
  #onSharedRedis = false;
  readonly #apps: TestApp[] = [];
  readonly #processes: AppProcess[] = [];

  constructor(private readonly options: HarnessOptions) {
    super();
  }

  get slack(): FakeSlackApi {
    return started(this.#slack, 'the Slack stand-in');
  }

  get sim(): Simulator {
    return started(this.#sim, 'the simulator');
  }

  /** The stand-in's Socket Mode server (with `slack: { socketMode: true }`). */
  get socket(): SocketModeStandin {
    return started(this.#socket, 'the Socket Mode server (slack: { socketMode: true })');
  }

  protected get overSocket(): SocketModeStandin | undefined {
    return this.#socket;
  }

  /** This test's store namespace: every boot uses it, so a second boot shares the data (a replica, or a restart). */
  get namespace(): string {
    return this.#namespace;
  }

  /** The app booted last. */
  get app(): TestApp {
    return started(this.#apps.at(-1), 'the app (boot() it first)');
  }

  /** Every app booted in this test, in order. */
  get apps(): readonly TestApp[] {
    return this.#apps;
  }

  async setUp(): Promise<void> {
    const { simulator, slack } = this.options;
    this.#namespace = testNamespace();
    [this.#slack, this.#sim] = await Promise.all([
      startFakeSlackApi(),
      startSimulator(typeof simulator === 'function' ? simulator() : simulator),
    ]);
    if (slack?.socketMode) this.#socket = await startSocketModeStandin(this.#slack);
  }

  async tearDown(): Promise<void> {
    await Promise.all(this.#apps.splice(0).map((app) => app.stop()));
    const alive = this.#processes.splice(0).filter((p) => p.child.exitCode === null && p.child.signalCode === null);
    await Promise.all(alive.map((p) => p.kill('SIGKILL')));
    await this.#socket?.close();
    await Promise.all([this.#sim?.close(), this.#slack?.close()]);
    if (this.#onSharedRedis) await dropNamespace(this.#namespace);
    this.#socket = this.#sim = this.#slack = undefined;
    this.#onSharedRedis = false;
  }

  /**
   * Starts the app (in this process) against the stand-in and the simulator, on the test's store and namespace.
   * Boot again for a second instance, or after `stopApps()` for a restart. Stopped at teardown.
   */
  async boot(options: BootOptions = {}): Promise<TestApp> {
    const {
      env,
      store = this.options.store ?? memoryStore,
      redisUrl = store.redisUrl,
      mintlifyUrl,
      ...start
    } = options;
    this.#onSharedRedis ||= store.kind === 'redis' && redisUrl === store.redisUrl;
    const startOne = (role: Record<string, string> = {}, own: StartOptions = {}) =>
      startTestApp(this.slack, mintlifyUrl ?? this.sim.url, {
        redisUrl,
        namespace: this.#namespace,
        env: { ...this.#baseEnv(), ...env, ...role },
        ...this.options.start,
        ...start,
        ...own,
      });
    const roleGiven = env?.ROLE ?? this.options.env?.ROLE;
    const processEnv = {
      ...(redisUrl && { REDIS_URL: redisUrl }),
      ...(mintlifyUrl && { MINTLIFY_API_URL: mintlifyUrl }),
    };
    const workerProcess = () => this.spawn({ ...env, ...processEnv, ROLE: 'worker' }).then(asTestApp);
    const worker = store.workerProcesses
      ? workerProcess
      : () => startOne({ ROLE: 'worker' }, { onListening: undefined });
    const app = store.split && !roleGiven ? await deployed(() => startOne({ ROLE: 'web' }), worker) : await startOne();
    let stopping: Promise<void> | undefined;
    const tracked = { ...app, stop: () => (stopping ??= app.stop()) };
    this.#apps.push(tracked);
    const socket = this.#socket;
    if (socket) await eventually(() => socket.connected, 5_000, 'the Socket Mode connection');
    return tracked;
  }

  /** Stops every app booted so far (a later `boot()` is the restart, on the same namespace). */
  async stopApps(): Promise<void> {
    await Promise.all(this.#apps.map((app) => app.stop()));
  }

  /** Stops every app, then boots one again (with other options, if given): a deploy, or a test's own configuration. */
  async restart(options: BootOptions = {}): Promise<TestApp> {
    await this.stopApps();
    return this.boot(options);
  }

  /** The environment the real entry point gets: the test env, the store's Redis and namespace, then `env`. */
  appEnv(env: Record<string, string> = {}): Record<string, string> {
    const redisUrl = this.options.store?.redisUrl;
    return testEnv(this.slack, this.sim.url, {
      ...(redisUrl && { REDIS_URL: redisUrl, STORE_NAMESPACE: this.#namespace }),
      LOG_LEVEL: 'info',
      ...this.#baseEnv(),
      ...env,
    });
  }

  /** Runs the real entry point as its own process (for real signals); killed at teardown if still running. */
  async spawn(env: Record<string, string> = {}): Promise<AppProcess> {
    const appEnv = this.appEnv(env);
    const sharedRedis = this.options.store?.redisUrl;
    this.#onSharedRedis ||= sharedRedis !== undefined && appEnv.REDIS_URL === sharedRedis;
    const child = await startAppProcess(appEnv);
    this.#processes.push(child);
    return child;
  }

  #baseEnv(): Record<string, string> {
    const socketEnv = this.#socket && { SLACK_APP_TOKEN: this.slack.workspace.appToken, SLACK_SIGNING_SECRET: '' };
    return { ...socketEnv, ...this.options.env };
  }
}

/**
 * The topology of a host (`splitRedis`, `splitProcesses`): 1 web app, the one a test talks to, and 2 workers, started
 * together on one Redis and namespace. Its logs are all three's; stopping it stops all three.
 */
async function deployed(startWeb: () => Promise<TestApp>, startWorker: () => Promise<TestApp>): Promise<TestApp> {
  const started = await Promise.allSettled([startWeb(), startWorker(), startWorker()]);
  const apps = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const failed = started.find((result) => result.status === 'rejected');
  if (failed) {
    await Promise.all(apps.map((app) => app.stop()));
    throw failed.reason;
  }
  const [web] = apps as [TestApp, ...TestApp[]];
  return {
    ...web,
    instances: apps.flatMap((app) => app.instances),
    logs: () => apps.map((app) => app.logs()).join('\n'),
    stop: async () => {
      await Promise.all(apps.map((app) => app.stop()));
    },
  };
}

/** A worker process as the harness hands out apps: its logs and its stop (SIGTERM); no deps to reach. */
function asTestApp(process: AppProcess): TestApp {
  return {
    url: process.url,
    get app(): never {
      throw new Error('a worker process has no deps in the test: use a Redis key, or splitRedis');
    },
    instances: [],
    logs: process.output,
    stop: async () => void (await process.kill('SIGTERM')),
  };
}

function started<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`${what}: not running (the harness runs inside tests only)`);
  return value;
}
