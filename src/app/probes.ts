import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
type Route = { path: string; handler: Handler };

/**
 * What an orchestrator and a scraper read, whatever the process's role. The public port (Slack's) answers `/healthz`
 * with up or down only; the operator port (METRICS_PORT, never exposed) serves `/metrics` and a `/healthz` that
 * names the checks failing. Metrics name projects and counts: they are for the operator, not for anyone on the web.
 */
export interface Probes {
  /** The public routes, for a receiver that serves its own HTTP (Bolt's HTTPReceiver `customRoutes`). */
  readonly routes: Route[];
  /** Another page on the public port, before `listen` or the receiver takes `routes` (the install pages, OAuth mode). */
  serve(path: string, handler: Handler): void;
  /** `/healthz` answers 200 only while every check passes: ready, the store answering, Socket Mode connected… */
  check(name: string, healthy: () => boolean): void;
  setReady(ready: boolean): void;
  /** The public routes on a server of their own on `port`, when nothing else listens there (Socket Mode, a worker). */
  listen(port: number): Promise<number>;
  /** The operator's server on `port`: `/metrics` and the detailed `/healthz`. */
  listenOperator(port: number): Promise<number>;
  close(): Promise<void>;
}

/** `host`: the address both ports listen on; every interface when not given. */
export function createProbes(log: Logger, metrics: Metrics, host?: string): Probes {
  let ready = false;
  const checks = new Map<string, () => boolean>();
  const failing = () => [...checks].filter(([, healthy]) => !healthy()).map(([name]) => name);
  const healthz: Handler = (_req, res) => {
    const ok = ready && failing().length === 0;
    res.writeHead(ok ? 200 : 503, { 'content-type': 'application/json' }).end(JSON.stringify({ ok }));
  };
  const detailedHealthz: Handler = (_req, res) => {
    // `ready`: started (Slack answered the start) and not stopping.
    const names = [...(ready ? [] : ['ready']), ...failing()];
    const ok = names.length === 0;
    res.writeHead(ok ? 200 : 503, { 'content-type': 'application/json' });
    res.end(JSON.stringify(ok ? { ok } : { ok, failing: names }));
  };
  const metricsEndpoint: Handler = (_req, res) => {
    metrics.render().then(
      (text) => res.writeHead(200, { 'content-type': metrics.contentType }).end(text),
      (error: Error) => {
        log.error('metrics.render_failed', { error });
        res.writeHead(500).end();
      },
    );
  };
  const routes: Route[] = [{ path: '/healthz', handler: healthz }];
  const operatorRoutes: Route[] = [
    { path: '/healthz', handler: detailedHealthz },
    { path: '/metrics', handler: metricsEndpoint },
  ];
  const servers: Server[] = [];
  const listenOn = async (port: number, served: Route[]) => {
    const server = serverFor(served);
    servers.push(server);
    server.listen(port, host);
    await once(server, 'listening');
    return (server.address() as AddressInfo).port;
  };
  return {
    routes,
    serve: (path, handler) => void routes.push({ path, handler }),
    check: (name, healthy) => void checks.set(name, healthy),
    setReady(value) {
      ready = value;
    },
    listen: (port) => listenOn(port, routes),
    listenOperator: (port) => listenOn(port, operatorRoutes),
    async close() {
      const open = servers.splice(0).filter((server) => server.listening);
      await Promise.all(
        open.map((server) => {
          server.closeAllConnections();
          return new Promise((resolve) => server.close(resolve));
        }),
      );
    },
  };
}

function serverFor(routes: Route[]): Server {
  const byPath = new Map(routes.map((r) => [r.path, r.handler]));
  const pathOf = (req: IncomingMessage) => new URL(req.url ?? '/', 'http://localhost').pathname;
  return createServer((req, res) => (byPath.get(pathOf(req)) ?? notFound)(req, res));
}

function notFound(_req: IncomingMessage, res: ServerResponse): void {
  res.writeHead(404).end();
}
