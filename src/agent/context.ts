import type { Deps } from '../deps.js';
import type { Bindings } from './bindings.js';
import type { Poller } from './poller.js';

/** What the agent feature's functions need beyond the app-wide deps. */
export interface AgentContext extends Deps {
  bindings: Bindings;
  poller: Poller;
}
