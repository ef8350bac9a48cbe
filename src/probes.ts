import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from './log.js';
import type { Metrics } from './metrics.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** `/healthz` and `/metrics`: what an orchestrator and a scraper read, whatever the process's role. */
export interface Probes {
  /** The two routes, for a receiver that serves its own HTTP (Bolt's HTTPReceiver `customRoutes`). */
  readonly routes: { path: string; handler: Handler }[];
  /** Another page on the same port, before `listen` or the receiver takes `routes` (the install pages, OAuth mode). */
  serve(path: string, handler: Handler): void;
  /** `/healthz` answers 200 only while every check passes: ready, the store answering, Socket Mode connected… */
  check(name: string, healthy: () => boolean): void;
  setReady(ready: boolean): void;
  /** A server of their own on `port`, when nothing else listens there (Socket Mode, the worker role). */
  listen(port: number): Promise<number>;
  close(): Promise<void>;
}

export function createProbes(log: Logger, metrics: Metrics): Probes {
  let ready = false;
  const checks = new Map<string, () => boolean>();
  const healthz: Handler = (_req, res) => {
    const failing = [...checks].filter(([, healthy]) => !healthy()).map(([name]) => name);
    const ok = ready && failing.length === 0;
    res.writeHead(ok ? 200 : 503, { 'content-type': 'application/json' });
    res.end(JSON.stringify(ok ? { ok } : { ok, ...(failing.length > 0 && { failing }) }));
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
  const routes = [
    { path: '/healthz', handler: healthz },
    { path: '/metrics', handler: metricsEndpoint },
  ];
  let server: Server | undefined;
  return {
    routes,
    serve: (path, handler) => void routes.push({ path, handler }),
    check: (name, healthy) => void checks.set(name, healthy),
    setReady(value) {
      ready = value;
    },
    async listen(port) {
      const byPath = new Map(routes.map((r) => [r.path, r.handler]));
      const pathOf = (req: IncomingMessage) => new URL(req.url ?? '/', 'http://localhost').pathname;
      server = createServer((req, res) => (byPath.get(pathOf(req)) ?? notFound)(req, res));
      server.listen(port);
      await once(server, 'listening');
      return (server.address() as AddressInfo).port;
    },
    async close() {
      if (!server?.listening) return;
      server.closeAllConnections();
      await new Promise((resolve) => server?.close(resolve));
    },
  };
}

function notFound(_req: IncomingMessage, res: ServerResponse): void {
  res.writeHead(404).end();
}
