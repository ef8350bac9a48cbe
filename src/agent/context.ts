import type { Deps } from '../deps.js';
import type { Poller } from './poller.js';
import type { Quota } from './quota.js';

/** What the agent feature's functions need beyond the app-wide deps. */
export interface AgentContext extends Deps {
  poller: Poller;
  quota: Quota;
}
