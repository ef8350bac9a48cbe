import { z } from 'zod';

// The simulator's own reading of the Analytics Export API's feedback, searches and assistant operations
// (analytics.openapi.json). Strict like contract.ts: an answer with a field the document does not name fails.

export const FEEDBACK_SOURCES = ['code_snippet', 'contextual', 'agent', 'thumbs_only'] as const;
export const FEEDBACK_STATUSES = ['pending', 'in_progress', 'resolved', 'dismissed'] as const;

const base = {
  id: z.string(),
  path: z.string(),
  comment: z.string().nullable(),
  createdAt: z.string().nullable(),
  source: z.enum(FEEDBACK_SOURCES),
  status: z.enum(FEEDBACK_STATUSES),
};
const contextual = { helpful: z.boolean(), contact: z.string().nullable() };
const codeSnippet = { code: z.string(), filename: z.string().nullable(), lang: z.string().nullable() };
/** `FeedbackResponse.feedback[]`: one of three shapes (contextual, code snippet, base), every field required. */
export const FeedbackEntrySchema = z.union([
  z.strictObject({ ...base, ...contextual }),
  z.strictObject({ ...base, ...codeSnippet }),
  z.strictObject(base),
]);
/** Every field any of the three shapes has. */
export const FeedbackFieldsSchema = z.strictObject({ ...base, ...contextual, ...codeSnippet });
export type FeedbackEntry = z.infer<typeof FeedbackEntrySchema>;

export const FeedbackResponseSchema = z.strictObject({
  feedback: z.array(FeedbackEntrySchema),
  nextCursor: z.string().nullable(),
  hasMore: z.boolean(),
});

export const PageFeedbackSchema = z.strictObject({
  path: z.string(),
  thumbsUp: z.number(),
  thumbsDown: z.number(),
  code: z.number(),
  total: z.number(),
});
export type PageFeedback = z.infer<typeof PageFeedbackSchema>;
export const FeedbackByPageSchema = z.strictObject({ feedback: z.array(PageFeedbackSchema), hasMore: z.boolean() });

export const SearchRowSchema = z.strictObject({
  searchQuery: z.string(),
  hits: z.number(),
  ctr: z.number(),
  topClickedPage: z.string().nullable(),
  lastSearchedAt: z.string(),
});
export type SearchRow = z.infer<typeof SearchRowSchema>;
export const SearchesResponseSchema = z.strictObject({
  searches: z.array(SearchRowSchema),
  totalSearches: z.number().int().min(0),
  nextCursor: z.string().nullable(),
});

export const ConversationSchema = z.strictObject({
  id: z.string(),
  timestamp: z.string(),
  query: z.string(),
  response: z.string(),
  // Not in the document's `required`: "defaults to `answer` when not present".
  responseType: z.enum(['answer', 'clarifying_question']).optional(),
  sources: z.array(z.strictObject({ title: z.string(), url: z.string() })),
  resolutionStatus: z.enum(['answered', 'unanswered']),
  queryCategory: z.string().nullable(),
  pageUrl: z.string().nullable(),
});
export type Conversation = z.infer<typeof ConversationSchema>;
export const ConversationsResponseSchema = z.strictObject({
  conversations: z.array(ConversationSchema),
  nextCursor: z.string().nullable(),
  hasMore: z.boolean(),
});

export const ThreadResponseSchema = z.strictObject({
  threadId: z.string(),
  createdAt: z.string(),
  messages: z.array(
    z.strictObject({
      id: z.string(),
      role: z.enum(['user', 'assistant']),
      content: z.string(),
      createdAt: z.string(),
    }),
  ),
});

export const CallerStatsSchema = z.strictObject({
  web: z.number(),
  api: z.number(),
  other: z.number(),
  total: z.number(),
});

/** `limit` bounds and defaults per operation, as documented. */
export const INSIGHT_LIMITS = {
  feedback: { max: 100, fallback: 50 },
  'feedback-by-page': { max: 100, fallback: 10 },
  searches: { max: 100, fallback: 50 },
  assistant: { max: 1000, fallback: 100 },
} as const;

/** Crockford base32, 26 characters: a ULID. */
export const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;
