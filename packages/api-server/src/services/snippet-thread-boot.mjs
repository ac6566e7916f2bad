// Entry of the snippet analysis thread (snippet-thread.ts): module hooks registered in the
// main thread do not reach worker threads, so the thread registers tsx's loader itself.
import { register } from "tsx/esm/api";

register();
await import("./snippet-thread-main.ts");
