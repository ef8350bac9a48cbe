import { describe } from 'vitest';
import { storeKinds } from '../support/redis.js';
import { conversations, TITLE } from './conversation.suite.js';

// With real worker processes too, in conversation.processes.test.ts: a file of its own, so the two run side by side.
describe.each(storeKinds)(TITLE, conversations);
