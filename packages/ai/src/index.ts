export * from "./review/index";
export { createOpenAiClient, type OpenAiClientOptions } from "./provider/openai-client";
export { ProviderError, type ModelProvider, type ChatTurn } from "./provider/types";
export { relayFeedback, RelayError, type FeedbackPayload, type RelayOptions } from "./feedback/relay";
export { answerChat, type AnswerChatInput } from "./chat/engine";
export type {
  ChatDataSource,
  ChatOrganization,
  ChatUser,
  FindingSummary,
  HistoryTurn,
  Route,
  ScanSummary,
  Specialist,
  SpecialistName,
} from "./chat/types";
export { defaultSpecialists } from "./chat/specialists";
export { getCwe, warmCweCatalog } from "./knowledge/cwe-catalog";
