import { z } from 'zod';
import type { Route } from './api-routes.js';
import { parseFaultBody } from './fault-body.js';
import type { FaultQueue } from './faults.js';
import { KeyConfigSchema, type KeyRing } from './keys.js';
import { parseJson, send } from './wire.js';

/** The switches a test sets over HTTP (`/__sim/…`, no key needed); see README.md beside this file. */
export function controlRoutes({ faults, keys }: { faults: FaultQueue; keys: KeyRing }): Route[] {
  return [
    {
      method: 'POST',
      pattern: ['__sim', 'faults'],
      handle: ({ res, body }) => {
        const parsed = parseFaultBody(parseJson(body));
        if ('error' in parsed) return send(res, 400, { error: parsed.error });
        faults.add(parsed.fault);
        send(res, 201, { ok: true });
      },
    },
    {
      method: 'DELETE',
      pattern: ['__sim', 'faults'],
      handle: ({ res }) => {
        faults.clear();
        send(res, 204);
      },
    },
    {
      method: 'PUT',
      pattern: ['__sim', 'keys'],
      handle: ({ res, body }) => {
        const parsed = KeyConfigSchema.safeParse(parseJson(body));
        if (!parsed.success) return send(res, 400, { error: z.prettifyError(parsed.error) });
        keys.configure(parsed.data);
        send(res, 200, { ok: true });
      },
    },
    {
      method: 'DELETE',
      pattern: ['__sim', 'keys'],
      handle: ({ res }) => {
        keys.configure(undefined);
        send(res, 204);
      },
    },
  ];
}
