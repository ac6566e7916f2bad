export { API_VERSION, apiRoutes, buildApp } from "./app";
export type { AppDeps } from "./http/context";
export { renderApiMarkdown } from "./api-docs";
export { StartupError, bootstrapIfEmpty, ensureRedis, redisAnswers, startApi, type RunningApi } from "./runtime";
