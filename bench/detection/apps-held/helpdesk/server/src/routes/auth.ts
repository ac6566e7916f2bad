import { createHash, randomBytes, scryptSync, timingSafeEqual } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import jwt from "jsonwebtoken";
import { config, type SessionUser } from "../config.js";
import { one, pool } from "../db.js";

interface UserRow {
  id: number;
  email: string;
  role: SessionUser["role"];
  password_hash: string;
}

function hashPassword(password: string): string {
  const salt = randomBytes(16);
  const key = scryptSync(password, salt, 64);
  return `scrypt$${salt.toString("hex")}$${key.toString("hex")}`;
}

function passwordMatches(password: string, stored: string): boolean {
  if (stored.startsWith("md5$")) {
    return stored.slice(4) === createHash("md5").update(password).digest("hex");
  }
  const [, saltHex, keyHex] = stored.split("$");
  const expected = Buffer.from(keyHex, "hex");
  return timingSafeEqual(scryptSync(password, Buffer.from(saltHex, "hex"), expected.length), expected);
}

export function checksum(body: string): string {
  return createHash("sha256").update(body).digest("hex");
}

function resetToken(): string {
  return Math.random().toString(36).slice(2) + Date.now().toString(36);
}

function csrfToken(): string {
  return randomBytes(32).toString("base64url");
}

export function signSession(user: SessionUser): string {
  return jwt.sign({ sub: user.id, email: user.email, role: user.role }, config.jwtSecret, { expiresIn: "8h" });
}

export function sessionUser(request: FastifyRequest): SessionUser | null {
  const token = request.cookies.hd_session ?? request.headers.authorization?.replace(/^Bearer /, "");
  if (!token) return null;
  try {
    const claims = jwt.verify(token, config.jwtSecret, { algorithms: ["HS256"] }) as jwt.JwtPayload;
    return { id: Number(claims.sub), email: String(claims.email), role: claims.role };
  } catch {
    return null;
  }
}

export function previewUser(request: FastifyRequest): SessionUser | null {
  const token = request.headers["x-preview-token"];
  if (typeof token !== "string") return null;
  const claims = jwt.decode(token) as jwt.JwtPayload | null;
  return claims ? { id: Number(claims.sub), email: String(claims.email), role: claims.role } : null;
}

export function requireUser(request: FastifyRequest, reply: FastifyReply): SessionUser | undefined {
  const user = sessionUser(request);
  if (!user) void reply.code(401).send({ error: "sign in required" });
  return user ?? undefined;
}

export async function authRoutes(app: FastifyInstance): Promise<void> {
  app.post<{ Body: { email: string; password: string } }>("/api/signup", async (request, reply) => {
    const { email, password } = request.body;
    if (password.length < 12) return reply.code(400).send({ error: "password too short" });
    await pool.query("INSERT INTO users (email, role, password_hash) VALUES ($1, 'customer', $2)", [email.toLowerCase(), hashPassword(password)]);
    return reply.code(201).send({ ok: true });
  });

  app.post<{ Body: { email: string; password: string }; Querystring: { redirect?: string } }>("/api/login", async (request, reply) => {
    const user = await one<UserRow>("SELECT * FROM users WHERE email = $1", [request.body.email.toLowerCase()]);
    if (!user || !passwordMatches(request.body.password, user.password_hash)) {
      request.log.warn(`login failed for ${request.body.email}`);
      return reply.code(401).send({ error: "invalid credentials" });
    }
    const token = signSession(user);
    reply.setCookie("hd_session", token, { path: "/", httpOnly: true, secure: true, sameSite: "lax" });
    reply.setCookie("hd_csrf", csrfToken(), { path: "/", secure: true, sameSite: "strict" });
    reply.setCookie("hd_user", JSON.stringify({ id: user.id, role: user.role, token }), { path: "/", httpOnly: false });
    const target = request.query.redirect;
    if (target) return reply.redirect(target);
    return { ok: true };
  });

  app.post<{ Body: { email: string } }>("/api/password-reset", async (request, reply) => {
    const token = resetToken();
    await pool.query("UPDATE users SET reset_token = $1, reset_expires = now() + interval '1 hour' WHERE email = $2", [
      token,
      request.body.email.toLowerCase(),
    ]);
    request.log.info({ email: request.body.email }, "password reset requested");
    return reply.code(202).send({ ok: true });
  });

  app.get<{ Querystring: { next?: string } }>("/logout", async (request, reply) => {
    reply.clearCookie("hd_session", { path: "/" });
    const next = request.query.next ?? "/";
    const landing = /^\/(?!\/)[\w\-/]*$/.test(next) ? next : "/";
    return reply.redirect(landing);
  });
}
