import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface AppProcess {
  url: string;
  child: ChildProcess;
  output: () => string;
  /** Sends `signal` and resolves with the exit code once the process is gone. */
  kill(signal: NodeJS.Signals): Promise<number | null>;
}

/**
 * Runs the real entry point (`src/index.ts`) as its own process, as `npm start` would, and waits until
 * it logs `app.started`. Used where a test needs real signals: SIGTERM, SIGKILL.
 */
export async function startAppProcess(env: Record<string, string>, timeoutMs = 15_000): Promise<AppProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/index.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`app did not start:\n${output}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const started = output.match(/"event":"app\.started","port":(\d+)/);
      if (started) {
        clearTimeout(timer);
        resolve(Number(started[1]));
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`app exited with ${code} before starting:\n${output}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    child,
    output: () => output,
    async kill(signal) {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      const exited = once(child, 'exit');
      child.kill(signal);
      const [code] = (await exited) as [number | null];
      return code;
    },
  };
}
