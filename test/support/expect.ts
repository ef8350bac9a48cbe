import { expect } from 'vitest';

/** Expects `text` to contain each of `parts` (a failure names the part that is missing). */
export function expectToContainAll(text: string, parts: readonly string[]): void {
  for (const part of parts) expect(text).toContain(part);
}
