import { takeProjectOption } from '../config/project-option.js';
import { parseVisitorsCommand, plainPunctuation } from '../visitors/index.js';
import { type InsightsPage, VIEWS, type View } from './requests.js';
import { MAX_ROWS } from './rows.js';

export type ParsedInsights =
  | { kind: 'page'; page: InsightsPage }
  | { kind: 'help' }
  | { kind: 'invalid'; problem: string };

/** A Map, so a word such as `constructor` names no view. */
const ALIASES = new Map<string, View>([
  ['feedback', 'feedback'],
  ['searches', 'searches'],
  ['search', 'searches'],
  ['questions', 'questions'],
  ['question', 'questions'],
  ['assistant', 'questions'],
  ['digest', 'digest'],
]);
const viewOf = (word: string) => ALIASES.get(word.toLowerCase());

/**
 * `/insights [--project id] [feedback|searches|questions] [range] [top N]`: the view's word anywhere, the rest in
 * `/visitors`' grammar (ranges, zones, `--project`); no view word is the digest of all three.
 */
export function parseInsightsCommand(text: string, nowMs: number, tz: string): ParsedInsights {
  const words = plainPunctuation(text).trim().split(/\s+/).filter(Boolean);
  const views = words.filter((word) => viewOf(word));
  if (views.length > 1) return { kind: 'invalid', problem: `Ask for one of ${VIEWS.join(', ')} at a time.` };
  const view = viewOf(views[0] ?? '') ?? 'digest';
  const rest = words.filter((word) => !viewOf(word));
  if (rest.some((word) => word.toLowerCase() === 'chart'))
    return { kind: 'invalid', problem: 'Charts are for `/visitors`; `/insights` lists what readers struggle with.' };
  if ('missing' in takeProjectOption(rest.join(' ')))
    return { kind: 'invalid', problem: '`--project` needs a project id, e.g. `/insights --project proj_b 30d`.' };
  // `top N` is read as /visitors reads it, but bounded by the rows a view shows (not /visitors' 250).
  const top = rest.findIndex((word) => word.toLowerCase() === 'top');
  const rows = rest[top + 1] ?? '';
  if (top >= 0 && /^\d+$/.test(rows) && (Number(rows) < 1 || Number(rows) > MAX_ROWS))
    return { kind: 'invalid', problem: `\`top\` must be between 1 and ${MAX_ROWS} here.` };
  const parsed = parseVisitorsCommand(rest.join(' '), nowMs, tz);
  if (parsed.kind !== 'report') return parsed;
  return { kind: 'page', page: { view, query: parsed.query } };
}
