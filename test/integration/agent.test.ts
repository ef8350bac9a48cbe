import { describe } from 'vitest';
import { storeKinds } from '../support/redis.js';
import { agentJobs, TITLE } from './agent.suite.js';

// With real worker processes too, in agent.processes.test.ts: a file of its own, so the two run side by side.
describe.each(storeKinds)(TITLE, agentJobs);
