/** `/agent` text: a prompt, or a request for usage (empty, whitespace, `help`). */
export function parseAgentCommand(text: unknown): { kind: 'help' } | { kind: 'prompt'; prompt: string } {
  // A malformed form body can repeat `text`, which arrives as an array.
  const prompt = typeof text === 'string' ? text.trim() : '';
  return !prompt || /^help$/i.test(prompt) ? { kind: 'help' } : { kind: 'prompt', prompt };
}
