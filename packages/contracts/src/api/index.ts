/** The HTTP API's wire shapes: request bodies, responses and error bodies, shared by the API, the CLI and tests. */
export * from "./common";
export * from "./errors";
export * from "./scan";
export * from "./finding";
export * from "./account";
export * from "./webhook";
export * from "./ai";
export * from "./ai-policy";
export * from "./admin";
