import { describe, expect, it } from 'vitest';
import { createMintlifyClient } from '../../../src/mintlify/client.js';
import { useSimulator } from '../../fakes/start-simulator.js';
import { captureLogs } from '../../support/logs.js';

const RANGE = { dateFrom: '2025-03-01', dateTo: '2025-06-01' };

describe('the client reads feedback, searches and the assistant as the analytics document has them', () => {
  const sim = useSimulator({ now: () => Date.parse('2025-06-15T10:00:00Z') });
  const client = () =>
    createMintlifyClient({ apiUrl: sim().url, keyFor: () => 'mint_k', log: captureLogs().log, getRetries: 0 });

  it('sends filters as documented (status comma-separated) and follows the cursor', async () => {
    const first = await client().getFeedback('proj_1', { ...RANGE, limit: 5, status: ['pending', 'in_progress'] });
    expect(first.ok && first.value.nextCursor).toBeTruthy();
    expect(sim().requests.at(-1)?.query).toEqual({ ...RANGE, limit: '5', status: 'pending,in_progress' });
    const cursor = first.ok ? (first.value.nextCursor ?? undefined) : undefined;
    const second = await client().getFeedback('proj_1', { ...RANGE, limit: 5, cursor });
    expect(second.ok && second.value.feedback[0]?.id).not.toBe(first.ok && first.value.feedback[0]?.id);
  });

  it('reads nullable fields as null and a missing responseType as answer', async () => {
    const searches = await client().getSearches('proj_1', { ...RANGE, limit: 100 });
    expect(searches.ok && searches.value.searches.some((row) => row.topClickedPage === null)).toBe(true);
    const turns = await client().getConversations('proj_1', { ...RANGE, limit: 1000 });
    if (!turns.ok) throw new Error('no conversations');
    expect(
      turns.value.conversations.every((turn) => ['answer', 'clarifying_question'].includes(turn.responseType)),
    ).toBe(true);
    const thread = await client().getThread('proj_1', turns.value.conversations[0]?.id ?? '');
    expect(thread.ok && thread.value.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    const byPage = await client().getFeedbackByPage('proj_1', { ...RANGE, limit: 100 });
    expect(byPage.ok && byPage.value.feedback.length).toBeGreaterThan(0);
  });

  it('sends an opaque cursor of any length the service gave (the document bounds none)', async () => {
    const cursor = 'c'.repeat(600);
    await client().getSearches('proj_1', { ...RANGE, limit: 100, cursor });
    await client().getFeedback('proj_1', { ...RANGE, limit: 100, cursor });
    const sent = sim().requests.slice(-2);
    expect(sent.map((r) => r.query.cursor)).toEqual([cursor, cursor]);
  });

  it('refuses before sending what the document would refuse', async () => {
    const before = sim().requests.length;
    const bad = await client().getFeedback('proj_1', { ...RANGE, limit: 101 });
    expect(bad.ok || bad.failure.code).toBe('refused');
    const thread = await client().getThread('proj_1', '../visitors');
    expect(thread.ok || thread.failure.code).toBe('refused');
    expect(sim().requests.length).toBe(before);
  });
});
