import { type ChildProcess, fork } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { fileURLToPath } from 'node:url';

type Handler = (payload: never) => unknown;

interface Request {
  rpc: number;
  type: string;
  payload: unknown;
}
interface Reply {
  reply: number;
  result?: unknown;
  error?: string;
}

/** A child process answering typed requests over IPC. */
export interface Child {
  process: ChildProcess;
  call<T>(type: string, payload?: unknown, timeoutMs?: number): Promise<T>;
  /** Asks the child to exit; kills it (by pid) if it has not gone after `graceMs`. */
  close(graceMs?: number): Promise<void>;
}

/**
 * `script`: a bench file (`target.ts`), run through tsx, or the absolute path of a compiled one (see dist.ts), run by
 * plain node as production runs. The child's standard output goes nowhere, or to `stdoutFile`.
 */
export function startChild(
  script: string,
  env: Record<string, string> = {},
  execArgv: string[] = [],
  stdoutFile?: string,
): Child {
  const compiled = isAbsolute(script);
  const stdout = stdoutFile ? openSync(stdoutFile, 'w') : 'ignore';
  const child = fork(compiled ? script : fileURLToPath(new URL(`../${script}`, import.meta.url)), [], {
    execArgv: compiled ? execArgv : ['--import', 'tsx', ...execArgv],
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production', ...env },
    stdio: ['ignore', stdout, 'inherit', 'ipc'],
  });
  // The child holds its own copy of the file.
  if (typeof stdout === 'number') closeSync(stdout);
  let next = 0;
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  child.on('message', (message: Reply) => {
    const waiter = pending.get(message.reply);
    if (!waiter) return;
    pending.delete(message.reply);
    if (message.error !== undefined) waiter.reject(new Error(`${script}: ${message.error}`));
    else waiter.resolve(message.result);
  });
  child.on('exit', (code) => {
    for (const waiter of pending.values()) waiter.reject(new Error(`${script} exited (${code})`));
    pending.clear();
  });
  return {
    process: child,
    call<T>(type: string, payload?: unknown, timeoutMs = 120_000) {
      const rpc = ++next;
      return new Promise<T>((resolve, reject) => {
        const timer = setTimeout(() => {
          pending.delete(rpc);
          reject(new Error(`${script}: ${type} timed out after ${timeoutMs} ms`));
        }, timeoutMs);
        pending.set(rpc, {
          resolve: (v) => {
            clearTimeout(timer);
            resolve(v as T);
          },
          reject: (e) => {
            clearTimeout(timer);
            reject(e);
          },
        });
        child.send({ rpc, type, payload } satisfies Request);
      });
    },
    async close(graceMs = 10_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      const force = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await this.call('exit', undefined, graceMs).catch(() => {});
      await exited;
      clearTimeout(force);
    },
  };
}

/** Child side: answers requests with `handlers`; `exit` runs `onExit` and ends the process. */
export function serve(handlers: Record<string, Handler>, onExit: () => Promise<void> = async () => {}): void {
  process.on('message', (message: Request) => {
    const respond = (reply: Omit<Reply, 'reply'>) => process.send?.({ reply: message.rpc, ...reply });
    if (message.type === 'exit') {
      void onExit()
        .catch(() => {})
        .finally(() => {
          respond({ result: true });
          setTimeout(() => process.exit(0), 20);
        });
      return;
    }
    const handler = handlers[message.type];
    if (!handler) return void respond({ error: `unknown request ${message.type}` });
    Promise.resolve()
      .then(() => handler(message.payload as never))
      .then(
        (result) => respond({ result }),
        (error: unknown) => respond({ error: error instanceof Error ? (error.stack ?? error.message) : String(error) }),
      );
  });
  // Never outlive the orchestrator.
  process.on('disconnect', () => process.exit(0));
}
