/**
 * A leading `--project <id>` (or `--project=<id>`) and the text after it. Only leading, so a prompt that merely
 * mentions a `--project` flag is left alone.
 */
export function takeProjectOption(text: string): { project?: string; rest: string } | { missing: true } {
  const match = /^\s*--project(?:=|\s+|$)(\S*)/.exec(text);
  if (!match) return { rest: text.trim() };
  const project = match[1] ?? '';
  return project ? { project, rest: text.slice(match[0].length).trim() } : { missing: true };
}
