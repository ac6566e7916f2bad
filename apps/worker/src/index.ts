export { startWorker, type RunningWorker, type WorkerDeps } from "./worker";
export { processScan } from "./process-scan";
export { reconcile } from "./reconciler";
export { onShutdown } from "./shutdown";
