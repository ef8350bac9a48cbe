import { describe, expect, it } from 'vitest';
import { createMemoryClaims } from '../../src/store/claims.js';
import { createStore } from '../../src/store/store.js';
import { captureLogs } from '../support/logs.js';
import { storeContract } from './store-contract.js';

describe('memory store', () => {
  storeContract({ create: (namespace) => createStore({ namespace, log: captureLogs().log }) });

  it('is used without REDIS_URL, and warns that bindings vanish on restart', async () => {
    const captured = captureLogs();
    const store = await createStore({ redisUrl: undefined, log: captured.log });
    try {
      expect(store.kind).toBe('memory');
      expect(captured.lines).toHaveLength(1);
      expect(JSON.parse(captured.lines[0] ?? '{}')).toMatchObject({
        level: 'warn',
        event: 'store.memory',
        message: expect.stringContaining('REDIS_URL'),
      });
    } finally {
      await store.close();
    }
  });

  it('treats an empty REDIS_URL as none', async () => {
    const store = await createStore({ redisUrl: '', log: captureLogs().log });
    expect(store.kind).toBe('memory');
    await store.close();
  });
});

describe('memory claims', () => {
  it('sweeps expired claims out of memory, so a stream of short claims cannot grow it', async () => {
    const claims = createMemoryClaims(20);
    try {
      for (let i = 0; i < 10_000; i++) await claims.claim(`event:${i}`, 'owner', 10);
      expect(claims.size).toBe(10_000);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(claims.size).toBe(0);
      expect(await claims.claim('event:1', 'owner', 10_000)).toBe(true);
    } finally {
      claims.close();
    }
  });
});
