import cookie from "@fastify/cookie";
import multipart from "@fastify/multipart";
import fastifyStatic from "@fastify/static";
import Fastify from "fastify";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { config } from "./config.js";
import { authRoutes } from "./routes/auth.js";
import { integrationRoutes } from "./routes/integrations.js";
import { ticketRoutes } from "./routes/tickets.js";

const here = path.dirname(fileURLToPath(import.meta.url));

export async function buildApp() {
  const app = Fastify({ logger: { level: process.env.LOG_LEVEL ?? "info" }, bodyLimit: 2 * 1024 * 1024 });
  await app.register(cookie, { secret: config.cookieSecret || undefined });
  await app.register(multipart, { limits: { fileSize: 10 * 1024 * 1024, files: 1 } });
  await app.register(fastifyStatic, { root: path.join(here, "..", "public"), prefix: "/" });
  app.addContentTypeParser(["text/plain", "application/yaml"], { parseAs: "string" }, (_req, body, done) => done(null, body));
  await app.register(authRoutes);
  await app.register(ticketRoutes);
  await app.register(integrationRoutes);
  app.get("/healthz", async () => ({ ok: true, uptime: process.uptime() }));
  return app;
}

const app = await buildApp();
await app.listen({ port: config.port, host: "0.0.0.0" });
