import { startSimulator } from './server.js';

const port = Number(process.env.SIMULATOR_PORT ?? 4010);
const jobDurationMs = Number(process.env.SIMULATOR_JOB_DURATION_MS ?? 3000);
if (!Number.isInteger(port) || port < 0 || !Number.isFinite(jobDurationMs) || jobDurationMs < 0) {
  console.error('SIMULATOR_PORT must be an integer and SIMULATOR_JOB_DURATION_MS a non-negative number');
  process.exit(1);
}

const simulator = await startSimulator({ port, jobDurationMs });
console.log(`Mintlify API simulator listening on ${simulator.url}`);
console.log(`Point the app at it with MINTLIFY_API_URL=${simulator.url}`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    simulator.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}
