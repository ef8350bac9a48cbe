import { LOG_LEVELS, type LogLevel } from '../../src/config/config.js';
import { createLogger } from '../../src/log.js';
import { startPlayground } from './server.js';

// `npm run playground`: the whole bot on 127.0.0.1, no Slack, no key. Prints one URL; the app's log lines
// (errors only, unless LOG_LEVEL says otherwise) go to stderr. PLAYGROUND_PORT picks the port.
const level = LOG_LEVELS.find((l) => l === process.env.LOG_LEVEL) ?? ('error' satisfies LogLevel);
const log = createLogger(level, (line) => process.stderr.write(`${line}\n`));
const port = Number(process.env.PLAYGROUND_PORT ?? 4400);
const playground = await startPlayground({ port, log }).catch(async (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EADDRINUSE') throw error;
  return startPlayground({ port: 0, log });
});
process.stdout.write(`Mintlify for Slack playground: ${playground.url}\n`);

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await playground.close();
  process.exit(0);
};
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
