/**
 * A Mintlify admin key or a Slack token pasted into what a person asks (`log.ts` hides the same shapes in log lines).
 * The agent could write it into a pull request and a job's root quotes its instruction in the channel, so text
 * holding one is neither sent nor posted. Only what looks random counts (long enough, a digit in it, not the end of a
 * word or a path segment): `mint_abc`, `mint_api_key_rotation`, `peppermint_…` and a docs page `/mint_v2_migration`
 * (readers’ feedback on it becomes a Draft a fix instruction) are words of an instruction.
 */
const SECRET = /(?<![\w/#-])(?:mint_(?=[\w.~+/=%-]*\d)[\w.~+/=%-]{12,}|(?:xox[a-z]|xapp)-[A-Za-z0-9-]{12,})/g;

export const holdsSecret = (text: string): boolean => text.search(SECRET) !== -1;

/** `text` with each secret cut to its kind (`mint_…`, `xoxb-…`), for an echo. */
export const maskSecrets = (text: string): string => text.replace(SECRET, (secret) => `${secret.slice(0, 5)}…`);
