import type { Conversation } from '../mintlify/analytics-schemas.js';

// The questions the docs assistant could not answer, grouped as /insights shows them.

export interface QuestionGroup {
  topic: string | null;
  questions: string[];
  count: number;
  sources: string[];
}

/** Questions grouped by the assistant's category when several share it (else by the question), most asked first. */
export function groupQuestions(turns: Conversation[]): QuestionGroup[] {
  const byKey = new Map<string, QuestionGroup>();
  for (const turn of turns) {
    const key = turn.queryCategory?.trim() ? `c:${turn.queryCategory.trim()}` : `q:${turn.query.trim().toLowerCase()}`;
    const found = byKey.get(key) ?? { topic: turn.queryCategory?.trim() || null, questions: [], count: 0, sources: [] };
    found.count += 1;
    if (!found.questions.includes(turn.query.trim())) found.questions.push(turn.query.trim());
    for (const { url } of turn.sources) if (!found.sources.includes(url)) found.sources.push(url);
    byKey.set(key, found);
  }
  return [...byKey.values()].sort((a, b) => b.count - a.count);
}
