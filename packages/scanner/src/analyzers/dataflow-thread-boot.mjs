// Entry of the dataflow worker thread: module hooks registered in the main thread do not
// reach worker threads, so the thread registers tsx's loader itself, then loads thread.ts.
import { register } from "tsx/esm/api";

register();
await import("./dataflow-thread.ts");
