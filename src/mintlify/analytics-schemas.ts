import { z } from 'zod';
import { ServiceDateSchema } from './schemas.js';

// Feedback, searches and the assistant's conversations (Analytics Export API v1), read as tolerantly as the
// document allows: every field it marks nullable is nullish here, and unknown enum values are kept as strings.

export const FEEDBACK_SOURCES = ['code_snippet', 'contextual', 'agent', 'thumbs_only'] as const;
export const FEEDBACK_STATUSES = ['pending', 'in_progress', 'resolved', 'dismissed'] as const;
export type FeedbackStatus = (typeof FEEDBACK_STATUSES)[number];

/** One `FeedbackResponse.feedback[]` entry: the three documented shapes in one, their own fields optional. */
export const FeedbackEntrySchema = z.object({
  id: z.string(),
  path: z.string(),
  comment: z.string().nullish(),
  createdAt: z.string().nullish(),
  source: z.string(),
  status: z.string(),
  /** Contextual feedback only. */
  helpful: z.boolean().optional(),
  contact: z.string().nullish(),
  /** Code snippet feedback only. */
  code: z.string().optional(),
  filename: z.string().nullish(),
  lang: z.string().nullish(),
});
export type FeedbackEntry = z.infer<typeof FeedbackEntrySchema>;

export const FeedbackResponseSchema = z.object({
  feedback: z.array(FeedbackEntrySchema),
  nextCursor: z.string().nullish(),
  hasMore: z.boolean(),
});
export type FeedbackResponse = z.infer<typeof FeedbackResponseSchema>;

export const PageFeedbackSchema = z.object({
  path: z.string(),
  thumbsUp: z.number(),
  thumbsDown: z.number(),
  code: z.number(),
  total: z.number(),
});
export type PageFeedback = z.infer<typeof PageFeedbackSchema>;
export const FeedbackByPageResponseSchema = z.object({ feedback: z.array(PageFeedbackSchema), hasMore: z.boolean() });
export type FeedbackByPageResponse = z.infer<typeof FeedbackByPageResponseSchema>;

export const SearchRowSchema = z.object({
  searchQuery: z.string(),
  hits: z.number(),
  ctr: z.number(),
  topClickedPage: z.string().nullish(),
  lastSearchedAt: z.string(),
});
export type SearchRow = z.infer<typeof SearchRowSchema>;
export const SearchesResponseSchema = z.object({
  searches: z.array(SearchRowSchema),
  totalSearches: z.number(),
  nextCursor: z.string().nullish(),
});
export type SearchesResponse = z.infer<typeof SearchesResponseSchema>;

export const ConversationSchema = z.object({
  id: z.string(),
  timestamp: z.string(),
  query: z.string(),
  response: z.string(),
  /** "Defaults to `answer` when not present." */
  responseType: z.string().default('answer'),
  sources: z.array(z.object({ title: z.string(), url: z.string() })),
  resolutionStatus: z.string(),
  queryCategory: z.string().nullish(),
  pageUrl: z.string().nullish(),
});
export type Conversation = z.infer<typeof ConversationSchema>;
export const ConversationsResponseSchema = z.object({
  conversations: z.array(ConversationSchema),
  nextCursor: z.string().nullish(),
  hasMore: z.boolean(),
});
export type ConversationsResponse = z.infer<typeof ConversationsResponseSchema>;

export const ThreadResponseSchema = z.object({
  threadId: z.string(),
  createdAt: z.string(),
  messages: z.array(z.object({ id: z.string(), role: z.string(), content: z.string(), createdAt: z.string() })),
});
export type ThreadResponse = z.infer<typeof ThreadResponseSchema>;

/** A cursor the service gave: opaque, of any length (the document bounds none). */
export const CursorSchema = z.string().min(1);
const ULID = /^[0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]{26}$/;

const window = { dateFrom: ServiceDateSchema, dateTo: ServiceDateSchema };
export const FeedbackQuerySchema = z.object({
  ...window,
  limit: z.number().int().min(1).max(100).default(50),
  source: z.enum(FEEDBACK_SOURCES).optional(),
  status: z.array(z.enum(FEEDBACK_STATUSES)).min(1).optional(),
  cursor: CursorSchema.optional(),
});
export type FeedbackQuery = z.input<typeof FeedbackQuerySchema>;
/** The most pages one answer of feedback by page holds: the endpoint has no cursor, and no documented order. */
export const FEEDBACK_BY_PAGE_MAX = 100;
export const FeedbackByPageQuerySchema = FeedbackQuerySchema.omit({ cursor: true }).extend({
  limit: z.number().int().min(1).max(FEEDBACK_BY_PAGE_MAX).default(10),
});
export type FeedbackByPageQuery = z.input<typeof FeedbackByPageQuerySchema>;
export const SearchesQuerySchema = z.object({
  ...window,
  limit: z.number().int().min(1).max(100).default(50),
  cursor: CursorSchema.optional(),
});
export type SearchesQuery = z.input<typeof SearchesQuerySchema>;
export const ConversationsQuerySchema = z.object({
  ...window,
  limit: z.number().int().min(1).max(1000).default(100),
  cursor: z.string().regex(ULID, 'not a ULID').optional(),
});
export type ConversationsQuery = z.input<typeof ConversationsQuerySchema>;
export const ThreadIdSchema = z.string().regex(ULID, 'not a thread id');
