import { registerAgent } from '../agent/register.js';
import type { Config } from '../config/config.js';
import type { Deps } from '../deps.js';
import { publishHome } from '../home/publish.js';
import { registerHome } from '../home/register.js';
import { registerInsights } from '../insights/register.js';
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics.js';
import { accessMiddleware } from '../slack/access.js';
import { createRouter } from '../slack/router.js';
import { createSlackTransport, type SlackTransport } from '../slack/transport.js';
import type { Store } from '../store/store.js';
import { ownOrganisation } from '../tenants/own-organisation.js';
import { registerTenancy } from '../tenants/register.js';
import { markingGone, storeDownGate } from '../tenants/removal.js';
import { registerUnfurls } from '../unfurls/register.js';
import { digestReading } from '../visitors/doors/read-command.js';
import { reportBeside } from '../visitors/doors/report-beside.js';
import { registerVisitors } from '../visitors/register.js';
import type { StartOptions } from './app.js';
import type { Installs, ManyWorkspaces } from './installs.js';
import type { Probes } from './probes.js';
import { type Removals, registerRemoval } from './removal.js';

/*
 * Slack's side of the app: the transport (Bolt's receiver) and every door. Loaded by `startApp` only in the roles
 * that receive (`all`, `web`), so a worker never loads Bolt, its receivers or the doors (BENCHMARKS §8: idle RSS).
 */

export function transportFor(
  config: Config,
  options: StartOptions,
  parts: {
    log: Logger;
    metrics: Metrics;
    probes: Probes;
    many: ManyWorkspaces | undefined;
    store: Store;
    tokenRefused: ((code: string) => void) | undefined;
  },
): SlackTransport {
  return createSlackTransport(config, parts.log, {
    host: options.host,
    metrics: parts.metrics,
    probes: parts.probes,
    authorize: parts.many && markingGone(parts.many.installer.authorize, parts.many.tenancy.installations, parts.store),
    replays: parts.store.claims,
    tokenRefused: parts.tokenRefused,
    ...(options.slackTimeoutMs && { timeoutMs: options.slackTimeoutMs }),
    ...(options.slackRetry && { retry: options.slackRetry }),
    ...(options.onListening && { onListening: options.onListening }),
  });
}

export function registerDoors(transport: SlackTransport, deps: Deps, installs: Installs, removals: Removals): void {
  const doors = createRouter(transport.bolt);
  if (installs.many) {
    doors.use(storeDownGate(deps.log));
    doors.use(ownOrganisation(installs.many.tenancy.installations, deps.log));
  }
  doors.use(accessMiddleware(deps.config, deps.log));
  registerRemoval(doors, deps.log, removals);
  if (installs.many) registerTenancy(doors, deps, installs.many.tenancy, { publishHome });
  registerAgent(doors, deps, reportBeside);
  registerHome(doors, deps);
  registerVisitors(doors, deps);
  registerInsights(doors, deps, digestReading);
  registerUnfurls(doors, deps);
  doors.mount();
}
