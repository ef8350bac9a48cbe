import { describe, expect, it } from 'vitest';
import { userMention } from '../../../src/slack/mrkdwn.js';
import { parseVisitorsCommand } from '../../../src/visitors/date-range.js';
import { parseDigestCommand } from '../../../src/visitors/digest/schedule.js';
import { errorCopy, helpMessage } from '../../../src/visitors/messages.js';
import { assertBlockKitLimits } from './limits.js';

const NOW = Date.parse('2026-11-22T23:05:00Z');

describe('helpMessage', () => {
  it('explains the syntax with examples that all parse and are never in the future', () => {
    const help = helpMessage(NOW);
    const text = assertBlockKitLimits(help).join('\n');
    expect(text).toContain('How to use `/visitors`');
    expect(text).toContain('UTC');
    const examples = [...text.matchAll(/`\/visitors([^`]*)`/g)].map((m) => (m[1] ?? '').trim());
    expect(examples.length).toBeGreaterThanOrEqual(6);
    for (const example of examples) {
      if (example.startsWith('digest')) {
        expect(parseDigestCommand(example.split(' ').slice(1)).kind, example).not.toBe('invalid');
      } else {
        expect(parseVisitorsCommand(example, NOW).kind, example).toBe('report');
      }
    }
    expect(text).toContain('/visitors 2026-11-15 2026-11-21');
  });

  it('puts the problem first when there is one', () => {
    const help = helpMessage(NOW, "I don't understand `banana`.");
    const texts = assertBlockKitLimits(help);
    expect(texts[0]).toBe(":warning: I don't understand `banana`.");
    expect(help.text).toContain('banana');
  });
});

describe('copy', () => {
  it('mentions real user ids and escapes anything else', () => {
    expect(userMention('U123ALICE')).toBe('<@U123ALICE>');
    expect(userMention('<!channel>')).toBe('&lt;!channel&gt;');
  });

  it('shows at most five service details, escaped and shortened', () => {
    const details = Array.from({ length: 8 }, (_, i) => `d${i} <x> ${'y'.repeat(400)}`);
    const text = errorCopy.invalidRequest('Bad\nrequest', details);
    expect(text.split('\n')).toHaveLength(1 + 5 + 1);
    expect(text).toContain('Bad request');
    expect(text).toContain('…and 3 more');
    expect(text).not.toContain('<x>');
    expect(text.length).toBeLessThan(3000);
  });
});
