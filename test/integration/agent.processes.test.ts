import { describe } from 'vitest';
import { splitProcesses } from '../support/redis.js';
import { agentJobs, TITLE } from './agent.suite.js';

// With real worker processes: these tests reach the app only as Slack and Mintlify do.
describe.each([splitProcesses])(TITLE, agentJobs);
