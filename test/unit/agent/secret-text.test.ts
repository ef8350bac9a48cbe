import { describe, expect, it } from 'vitest';
import { holdsSecret, maskSecrets } from '../../../src/agent/secret-text.js';

describe('a key or token in what a person types', () => {
  it.each([
    'use mint_live.4f1c2d9e~8b7a+Qx/y_z-9= for the examples',
    'the bot token is xoxb-2004-7723-Kq9sYc4Jm2Lp8Zx0',
    'refresh with xoxe-1-My0xLTQ3NjM1NzY',
    'socket token xapp-1-A0123456789-9876',
    'the link was https://docs.example.test/api?key=mint_live4f1c2d9e8b7aQxyz',
  ])('finds %j', (text) => expect(holdsSecret(text)).toBe(true));

  it.each([
    'Explain that admin keys start with mint_',
    'keys look like mint_abc123',
    'tokens start with xoxb-',
    'Document the mint_api_key_rotation setting',
    'The peppermint_flavour_2024_edition page',
  ])('leaves %j alone: a word, not a key', (text) => expect(holdsSecret(text)).toBe(false));

  // A docs page's path (readers' feedback on it becomes a Draft a fix instruction) is a name, never a key.
  it.each([
    'Fix /guides/mint_v2_migration: readers cannot find the upgrade steps',
    'See docs.example.test/mint_2024_setup#mint_v3_notes',
  ])('leaves %j alone: a page, not a key', (text) => expect(holdsSecret(text)).toBe(false));

  it('masks each to its kind', () => {
    expect(maskSecrets('a mint_live4f1c2d9e8b7aQxyz and xoxb-2004-7723-Kq9sYc4Jm2Lp8Zx0.')).toBe(
      'a mint_… and xoxb-….',
    );
  });
});
