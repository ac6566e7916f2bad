export { startWorker, type RunningWorker, type WorkerDeps } from "./worker";
export { processScan } from "./process-scan";
export { reconcile } from "./reconciler";
export { onShutdown } from "./shutdown";
export { emitWebhookEvent, findingTriagedEvent, groupDeletedEvent, testEvent, type EmitDeps } from "./webhooks/events";
export type { ResolveHost } from "@ax/scanner";
export { scanEndedEvent } from "./webhooks/events";
export { expirePublicScans } from "./public-scans";
