import { afterAll } from 'vitest';
import { ackBodies, startedStandins, unsafeBodies } from './wire-safety.js';

// After each test file: every message, update, ephemeral and response_url body the app sent to any stand-in in it
// must be safe on the wire (no raw broadcast, no unescaped user markup, nothing escaped twice).
afterAll(() => {
  const problems = [
    ...startedStandins.splice(0).flatMap((standin) => unsafeBodies(standin.calls)),
    ...unsafeBodies(ackBodies.splice(0)),
  ];
  if (problems.length) {
    throw new Error(`The app sent text Slack would render wrongly:\n${[...new Set(problems)].slice(0, 20).join('\n')}`);
  }
});
