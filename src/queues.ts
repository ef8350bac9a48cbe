import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadEnvFile } from './config/env-file.js';
import { runQueuesCommand } from './queue/queues-cli.js';

// `npm run queues` / `node dist/queues.js`. Runs only as the entry point, so importing it (npm run check:dist does)
// connects to nothing.
const entry = process.argv[1];
if (entry && realpathSync(entry) === fileURLToPath(import.meta.url)) {
  loadEnvFile();
  process.exitCode = await runQueuesCommand(process.argv.slice(2), process.env, {
    out: (text) => process.stdout.write(`${text}\n`),
    err: (text) => process.stderr.write(`${text}\n`),
  });
}
