/**
 * Entry points that receive client data without an HTTP request object: GraphQL resolvers
 * (their `args`), tRPC procedures (`input`), WebSocket and socket.io message handlers, and
 * AWS Lambda handlers (`event`). javascript-frameworks.ts marks the parameters as sources.
 */
import type { Expr, FunctionIR } from "./ir";

export type SourceParam = NonNullable<FunctionIR["sourceParams"]>[number];

const GRAPHQL_ROOTS = new Set(["Query", "Mutation"]);
/** Sockets by their usual names: `socket`, `ws`, `this.socket`, `client.socket`. */
const SOCKET = /(^|\.)(socket|sock|ws|webSocket|websocket)$/;
/** Lifecycle events carry no client data (`io.on("connection", (socket) => …)`). */
const LIFECYCLE = new Set([
  "connection",
  "connect",
  "disconnect",
  "disconnecting",
  "close",
  "error",
  "open",
  "listening",
  "upgrade",
  "ping",
  "pong",
  "end",
  "timeout",
  "drain",
]);
const TRPC_HANDLERS = new Set(["query", "mutation", "subscription"]);

function add(out: Map<string, SourceParam[]>, fn: Expr | undefined, param: SourceParam): void {
  if (fn?.k !== "lambda" && fn?.k !== "var") return;
  out.set(fn.name, [...(out.get(fn.name) ?? []), param]);
}

/** Collects, by function name, the parameters such entry points receive client data in. */
export function collectMessageSources(e: Expr, out: Map<string, SourceParam[]>): void {
  // const resolvers = { Query: { user: (parent, args) => … }, Mutation: { … } }
  if (e.k === "object") {
    for (const root of e.entries)
      if (root.key !== null && GRAPHQL_ROOTS.has(root.key) && root.value.k === "object")
        for (const field of root.value.entries) add(out, field.value, { index: 1, label: "GraphQL resolver arguments" });
    return;
  }
  if (e.k !== "call") return;
  // socket.on("chat", (msg, ack) => …), ws.on("message", (data) => …)
  if ((e.callee === "on" || e.callee === "once") && e.receiver) {
    const recv = e.receiver.k === "var" ? e.receiver.name : e.receiver.k === "field" ? e.receiver.path : undefined;
    const [event, cb] = e.args;
    if (recv && SOCKET.test(recv) && event?.k === "const" && typeof event.value === "string" && !LIFECYCLE.has(event.value)) {
      add(out, cb, { index: 0, label: "WebSocket message" });
      add(out, cb, { index: 1, label: "WebSocket message" });
    }
    return;
  }
  // publicProcedure.input(schema).query(({ input }) => …): the schema checks the shape, not the content.
  if (TRPC_HANDLERS.has(e.callee) && hasInputStep(e.receiver)) add(out, e.args[0], { index: 0, label: "tRPC procedure input" });
}

function hasInputStep(e: Expr | null): boolean {
  for (let cur = e; cur?.k === "call"; cur = cur.receiver) if (cur.callee === "input") return true;
  return false;
}

/** `export const handler = async (event) => …`: an AWS Lambda handler's event is the client's request. */
export function lambdaEvent(fn: FunctionIR): SourceParam | undefined {
  return fn.name === "handler" && /^(event|evt)$/.test(fn.params[0]?.name ?? "") ? { index: 0, label: "AWS Lambda event" } : undefined;
}
