import { describe } from 'vitest';
import { splitProcesses } from '../support/redis.js';
import { conversations, TITLE } from './conversation.suite.js';

// With real worker processes: these tests reach the app only as Slack and Mintlify do.
describe.each([splitProcesses])(TITLE, conversations);
