export * from "./git-uri";
export * from "./finding";
export * from "./scan";
export * from "./jobs";
export * from "./body";
export * from "./webhook";
export * from "./admin";
export * from "./notices";
