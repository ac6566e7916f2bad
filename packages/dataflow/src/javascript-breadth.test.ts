/**
 * Breadth of the JavaScript/TypeScript taint tables on application code written in styles the
 * development fixtures seldom use: Express routers with destructured input and chained
 * responses, Koa, Fastify, NestJS, Next.js, promisified child_process, ORMs, jQuery and the
 * browser's location. Each vulnerable line has a safe twin that must stay quiet.
 */
import { analyzeModules } from "./engine";
import { lowerJavaScript } from "./javascript";
import { JAVASCRIPT_SPEC } from "./javascript-spec";

/** `file:line CWE` of every finding, sorted. */
function findings(files: Record<string, string>): string[] {
  const modules = Object.entries(files).map(([file, src]) =>
    lowerJavaScript(file, src, /\.tsx?$/.test(file) ? "typescript" : "javascript"),
  );
  const lines = (f: string) => (files[f] ?? "").split("\n");
  const out = analyzeModules(modules, { specs: new Map([["javascript", JAVASCRIPT_SPEC]]), lines });
  return [...new Set(out.map((f) => `${f.file}:${f.start_line} ${f.cwe_id}`))].sort();
}

/** The lines of `src` that carry a `// VULN` marker, as `file:line CWE-n`. */
function marked(file: string, src: string): string[] {
  return src
    .split("\n")
    .flatMap((l, i) => {
      const m = /\/\/ VULN (CWE-\d+)/.exec(l);
      return m ? [`${file}:${i + 1} ${m[1]}`] : [];
    })
    .sort();
}

function expectMarked(file: string, src: string): void {
  expect(findings({ [file]: src })).toEqual(marked(file, src));
}

describe("javascript breadth: responses and redirects", () => {
  it("sees Express responses through their chaining setters, and Fastify replies typed as HTML", () => {
    const src = [
      'const express = require("express");',
      "const router = express.Router();",
      'router.get("/a", (req, res) => {',
      '  res.status(404).send("Not found: " + req.query.q); // VULN CWE-79',
      "  res.status(200).json({ q: req.query.q });",
      '  res.type("html").send(`<p>${req.query.name}</p>`); // VULN CWE-79',
      "  res.status(200).sendFile(req.query.file); // VULN CWE-22",
      "});",
      'fastify.get("/f", async (request, reply) => {',
      '  reply.type("text/html").send(`<div>${request.query.q}</div>`); // VULN CWE-79',
      '  reply.header("Content-Type", "text/html; charset=utf-8").send(request.query.q); // VULN CWE-79',
      "  reply.send(request.query.q);",
      '  reply.type("application/json").send(request.query.q);',
      "});",
    ].join("\n");
    expectMarked("routes.js", src);
  });

  it("treats send of an object or array literal as JSON, and a response typed as non-HTML as safe", () => {
    const src = [
      'app.get("/a", (req, res) => {',
      "  res.send({ name: req.query.name });",
      "  res.status(400).send({ error: 'bad id ' + req.params.id });",
      "  res.send([req.query.a, req.query.b]);",
      '  res.type("json").send(req.query.q);',
      '  res.set("Content-Type", "text/plain").send(req.query.q);',
      '  res.type("application/javascript").send(req.query.callback + "(" + JSON.stringify({ ok: 1 }) + ")"); // VULN CWE-79',
      '  res.set("Cache-Control", "no-store").send(req.query.q); // VULN CWE-79',
      "  res.send('<p>' + req.query.q + '</p>'); // VULN CWE-79",
      "  res.send({ html: req.query.q }.html); // VULN CWE-79",
      "});",
    ].join("\n");
    expectMarked("json.js", src);
  });

  it("takes the request's path and host as input in Express and Koa", () => {
    const src = [
      "app.use((req, res) => {",
      '  res.status(404).send("<h1>No page at " + req.path + "</h1>"); // VULN CWE-79',
      '  res.redirect("https://" + req.hostname + "/login"); // VULN CWE-601',
      '  res.status(404).send("<h1>No page</h1>");',
      "});",
      "router.get('/k', async (ctx, next) => {",
      "  ctx.redirect(ctx.origin + ctx.query.next); // VULN CWE-601",
      '  ctx.redirect("/home");',
      "});",
    ].join("\n");
    expectMarked("notfound.js", src);
  });

  it("redirects through the browser's location.href, not any object's href", () => {
    const src = [
      "const params = new URLSearchParams(window.location.search);",
      'window.location.href = params.get("next"); // VULN CWE-601',
      'location.href = params.get("goto"); // VULN CWE-601',
      'link.href = params.get("next");',
      'window.location.href = "/home";',
    ].join("\n");
    expectMarked("page.js", src);
  });
});

describe("javascript breadth: more frameworks' responses", () => {
  it("covers hapi's toolkit, Koa's header calls and Next.js redirects", () => {
    const src = [
      'import { NextRequest, NextResponse } from "next/server";',
      'import { redirect } from "next/navigation";',
      "server.route({",
      '  method: "GET",',
      '  path: "/h",',
      "  handler: (request, h) => {",
      "    if (request.query.go) return h.redirect(request.query.next); // VULN CWE-601",
      '    return h.response("<p>" + request.payload.name + "</p>"); // VULN CWE-79',
      "  },",
      "});",
      "app.use(async (ctx, next) => {",
      '  ctx.set("X-Echo", ctx.get("X-Input")); // VULN CWE-113',
      '  ctx.set("X-Fixed", "1");',
      "  await next();",
      "});",
      "export async function GET(req: NextRequest) {",
      '  const next = req.nextUrl.searchParams.get("next")!;',
      "  if (next.length > 1) redirect(next); // VULN CWE-601",
      "  return NextResponse.redirect(new URL(next, req.url)); // VULN CWE-601",
      "}",
      "export async function POST(req: NextRequest) {",
      '  return NextResponse.redirect(new URL("/home", req.url));',
      "}",
    ].join("\n");
    expectMarked("routes.ts", src);
  });

  it("covers Remix and SvelteKit redirects from loaders, actions and endpoints", () => {
    const remix = [
      'import { redirect } from "@remix-run/node";',
      "export async function action({ request }: ActionFunctionArgs) {",
      "  const form = await request.formData();",
      '  if (form.get("stay")) return redirect("/notes");',
      '  return redirect(String(form.get("next"))); // VULN CWE-601',
      "}",
    ].join("\n");
    expectMarked("app/routes/notes.tsx", remix);
    const svelte = [
      'import { redirect } from "@sveltejs/kit";',
      "export const GET = async ({ url }) => {",
      '  if (url.searchParams.has("home")) throw redirect(302, "/");',
      '  throw redirect(302, url.searchParams.get("next") ?? "/"); // VULN CWE-601',
      "};",
    ].join("\n");
    expectMarked("src/routes/go/+server.ts", svelte);
  });

  it("covers res.location, window.open and the request client", () => {
    const src = [
      'const request = require("request");',
      'app.get("/go", (req, res) => {',
      "  res.location(req.query.to).sendStatus(302); // VULN CWE-601",
      '  res.location("/home");',
      "  request(req.query.url, () => res.end()); // VULN CWE-918",
      '  request.get("https://api.example.com/status", () => res.end());',
      "});",
      'const next = new URLSearchParams(location.search).get("next");',
      "window.open(next); // VULN CWE-601",
      'window.open("/help");',
    ].join("\n");
    expectMarked("nav.js", src);
  });
});

describe("javascript breadth: handler shapes", () => {
  it("takes a destructured first parameter followed by a response as the request", () => {
    const src = [
      'import { Router } from "express";',
      "const r = Router();",
      'r.get("/x", async ({ query, params: { id } }, res) => {',
      "  await pool.query(`SELECT * FROM items WHERE name = '${query.name}'`); // VULN CWE-89",
      '  await pool.query("SELECT * FROM items WHERE id = " + id); // VULN CWE-89',
      '  await pool.query("SELECT * FROM items WHERE id = $1", [id]);',
      "  res.json({});",
      "});",
      "const render = ({ title }, out) => out.push(title);",
      'render({ title: "x" }, []);',
    ].join("\n");
    expectMarked("items.ts", src);
  });
});

describe("javascript breadth: regular expressions from input", () => {
  it("reports String.prototype.match with an input pattern, not includes, escaped patterns or routers", () => {
    const src = [
      'import escapeStringRegexp from "escape-string-regexp";',
      'app.get("/m", (req, res) => {',
      '  const text = "some long text";',
      "  const a = text.match(req.query.re); // VULN CWE-1333",
      "  const b = [...text.matchAll(req.query.re)]; // VULN CWE-1333",
      "  const c = text.includes(req.query.re);",
      "  const d = text.match(escapeStringRegexp(req.query.re));",
      "  const e = router.match(req.path);",
      "  res.json({ a, b, c, d, e });",
      "});",
    ].join("\n");
    expectMarked("match.js", src);
  });
});

describe("javascript breadth: entry points without an HTTP request object", () => {
  it("takes GraphQL resolver arguments, socket messages, tRPC input and Lambda events as client data", () => {
    const src = [
      'import { exec } from "child_process";',
      'import { Pool } from "pg";',
      "const pool = new Pool();",
      "export const resolvers = {",
      "  Query: {",
      '    user: (_, { id }) => pool.query("SELECT * FROM users WHERE id = " + id), // VULN CWE-89',
      "    async search(parent, args) {",
      "      return pool.query(`SELECT * FROM items WHERE name LIKE '%${args.term}%'`); // VULN CWE-89",
      "    },",
      '    safe: (_, { id }) => pool.query("SELECT * FROM users WHERE id = $1", [id]),',
      "  },",
      "  Mutation: { run: (_, args) => exec(args.cmd) }, // VULN CWE-78",
      "};",
      'io.on("connection", (socket) => {',
      '  socket.on("ping-host", (host) => exec("ping -c 1 " + host)); // VULN CWE-78',
      '  socket.on("disconnect", (reason) => exec("logger " + reason));',
      "});",
      'wss.on("connection", (ws) => {',
      '  ws.on("message", (data) => pool.query("DELETE FROM t WHERE id = " + JSON.parse(data.toString()).id)); // VULN CWE-89',
      "});",
      "export const appRouter = router({",
      "  byName: publicProcedure",
      "    .input(z.object({ name: z.string() }))",
      "    .query(({ input }) => pool.query(`SELECT * FROM users WHERE name = '${input.name}'`)), // VULN CWE-89",
      "  all: publicProcedure.query(({ ctx }) => pool.query(`SELECT * FROM users WHERE org = '${ctx.org}'`)),",
      "});",
      "export const handler = async (event) => {",
      '  exec("echo " + event.queryStringParameters.name); // VULN CWE-78',
      "};",
      'const notAHandler = (event) => exec("echo " + event.type);',
    ].join("\n");
    expectMarked("api.js", src);
  });
});

describe("javascript breadth: Angular", () => {
  it("takes the ActivatedRoute's snapshot and observables as URL input, into the DOM and navigation", () => {
    const src = [
      "export class SearchComponent {",
      "  constructor(private readonly route: ActivatedRoute, private readonly renderer: Renderer2, private readonly el: ElementRef) {}",
      "  ngOnInit(): void {",
      '    const q = this.route.snapshot.queryParamMap.get("q");',
      '    this.renderer.setProperty(this.el.nativeElement, "innerHTML", q); // VULN CWE-79',
      '    this.renderer.setProperty(this.el.nativeElement, "textContent", q);',
      '    this.el.nativeElement.innerHTML = this.route.snapshot.params["name"]; // VULN CWE-79',
      '    this.el.nativeElement.innerHTML = this.route.snapshot.data["title"];',
      "    this.route.queryParams.subscribe((params) => {",
      '      window.location.href = params["returnUrl"]; // VULN CWE-601',
      "    });",
      '    this.route.paramMap.pipe(map((pm) => pm.get("id"))).subscribe((id) => {',
      "      document.body.innerHTML = id; // VULN CWE-79",
      "    });",
      "    this.store.select(selectUser).subscribe((user) => {",
      "      document.body.innerHTML = user;",
      "    });",
      "  }",
      "}",
    ].join("\n");
    expectMarked("search.component.ts", src);
  });
});

describe("javascript breadth: options that make a call safe", () => {
  it("leaves res.sendFile with a root and mysql's { sql, values } form alone, and reports their unsafe twins", () => {
    const src = [
      'const mysql = require("mysql");',
      "const conn = mysql.createConnection({});",
      'app.get("/f/:name", (req, res) => {',
      '  res.sendFile(req.params.name, { root: __dirname + "/public" });',
      '  res.sendFile(__dirname + "/public/" + req.params.name); // VULN CWE-22',
      '  res.download(req.params.name, "report.pdf", { root: "/srv/reports" });',
      '  conn.query({ sql: "SELECT * FROM t WHERE n = ?", values: [req.query.n] }, () => undefined);',
      '  conn.query({ sql: "SELECT * FROM t WHERE n = \'" + req.query.n + "\'" }, () => undefined); // VULN CWE-89',
      "});",
    ].join("\n");
    expectMarked("opts.js", src);
  });

  it("does not carry a lookup key's taint into the record it finds", () => {
    const src = [
      'app.get("/u/:id", async (req, res) => {',
      "  const user = await User.findById(req.params.id);",
      '  res.send("<p>" + user.bio + "</p>");',
      "  const post = await prisma.post.findUnique({ where: { id: req.params.id } });",
      "  res.send(post.html);",
      '  res.send("<p>" + req.params.id + "</p>"); // VULN CWE-79',
      "});",
    ].join("\n");
    expectMarked("users.js", src);
  });

  it("reports Sequelize literal() fragments built from input, not constant ones", () => {
    const src = [
      'import { literal, Sequelize } from "sequelize";',
      'app.get("/p", async (req, res) => {',
      '  await Post.findAll({ order: [[literal(`score * ${req.query.w}`), "DESC"]] }); // VULN CWE-89',
      '  await Post.findAll({ where: Sequelize.literal("id = " + req.query.id) }); // VULN CWE-89',
      '  await Post.findAll({ order: [[literal("score"), "DESC"]] });',
      "  res.end();",
      "});",
    ].join("\n");
    expectMarked("posts.ts", src);
  });

  it("reaches SQL through injected TypeORM managers, repositories and query runners, pg-promise and postgres.js", () => {
    const src = [
      'import pgPromise from "pg-promise";',
      'import postgres from "postgres";',
      'const db = pgPromise()("postgres://localhost/app");',
      "const sql = postgres();",
      "export class OrderService {",
      "  constructor(private readonly manager: EntityManager, private readonly ordersRepository: Repository<Order>, private dataSource: DataSource, private em: MikroEm) {}",
      "  a(id: string) {",
      '    return this.manager.query("SELECT * FROM orders WHERE id = " + id); // VULN CWE-89',
      "  }",
      "  b(id: string) {",
      "    return this.ordersRepository.query(`SELECT * FROM orders WHERE id = ${id}`); // VULN CWE-89",
      "  }",
      "  c(id: string) {",
      '    this.dataSource.query("SELECT 1 FROM orders WHERE id = " + id); // VULN CWE-89',
      '    this.em.execute("DELETE FROM orders WHERE id = " + id); // VULN CWE-89',
      "    return this.ordersRepository.findOne({ where: { id } });",
      "  }",
      "}",
      "export async function handler(req: Request, res: Response) {",
      "  const svc = new OrderService(manager, repo);",
      "  await svc.a(req.params.id);",
      "  await svc.b(req.params.id);",
      "  await svc.c(req.params.id);",
      '  await db.any("SELECT * FROM t WHERE n = \'" + req.query.n + "\'"); // VULN CWE-89',
      '  await db.any("SELECT * FROM t WHERE n = $1", [req.query.n]);',
      "  await sql.unsafe(`SELECT * FROM t WHERE n = '${req.query.n}'`); // VULN CWE-89",
      "  await sql`SELECT * FROM t WHERE n = ${req.query.n}`;",
      "}",
      'app.get("/o/:id", handler);',
    ].join("\n");
    expectMarked("orders.ts", src);
  });
});

describe("javascript breadth: DOM markup sinks", () => {
  it("reports srcdoc, contextual fragments and script-running attributes, not text or titles", () => {
    const src = [
      'const q = new URLSearchParams(location.search).get("q");',
      'const frame = document.createElement("iframe");',
      "frame.srcdoc = q; // VULN CWE-79",
      "const frag = document.createRange().createContextualFragment(q); // VULN CWE-79",
      'const a = document.createElement("a");',
      'a.setAttribute("href", q); // VULN CWE-79',
      'a.setAttribute("onclick", q); // VULN CWE-79',
      'a.setAttribute("title", q);',
      'a.setAttribute("href", "/help");',
      "a.textContent = q;",
    ].join("\n");
    expectMarked("dom.js", src);
  });
});

describe("javascript breadth: file names", () => {
  it("takes sanitize-filename's result as one safe name, like path.basename", () => {
    const src = [
      'const sanitize = require("sanitize-filename");',
      'const fs = require("fs");',
      'app.post("/save", (req, res) => {',
      '  fs.writeFileSync("/srv/notes/" + sanitize(req.body.name), req.body.text);',
      '  fs.writeFileSync("/srv/notes/" + req.body.name, req.body.text); // VULN CWE-22',
      "  res.end();",
      "});",
    ].join("\n");
    expectMarked("notes.js", src);
  });
});

describe("javascript breadth: jQuery", () => {
  it("reports markup handed to jQuery's HTML methods and to $() itself, not text", () => {
    const src = [
      'import $ from "jquery";',
      'const msg = new URLSearchParams(location.search).get("msg");',
      '$("#box").html(msg); // VULN CWE-79',
      "const $list = $('#list');",
      '$list.append("<li>" + msg + "</li>"); // VULN CWE-79',
      "$(location.hash); // VULN CWE-79",
      '$("#box").text(msg);',
      '$("#box").html("<b>fixed</b>");',
      '$("#box").attr("title", msg);',
    ].join("\n");
    expectMarked("widget.js", src);
  });
});

describe("javascript breadth: promisified child_process", () => {
  it("keeps the wrapped function's sink through util.promisify, in both module systems", () => {
    const esm = [
      'import { promisify } from "node:util";',
      'import { exec, execFile } from "node:child_process";',
      "const execAsync = promisify(exec);",
      "const execFileAsync = promisify(execFile);",
      'app.get("/ping", async (req, res) => {',
      '  await execAsync("ping -c 1 " + req.query.host); // VULN CWE-78',
      '  await execFileAsync("ping", ["-c", "1", req.query.host]);',
      "});",
    ].join("\n");
    expectMarked("ping.ts", esm);
    const cjs = [
      'const util = require("util");',
      'const cp = require("child_process");',
      "const run = util.promisify(cp.exec);",
      'app.post("/x", async (req, res) => {',
      "  const { cmd } = req.body;",
      "  await run(cmd); // VULN CWE-78",
      "});",
    ].join("\n");
    expectMarked("run.js", cjs);
  });

  it("reports spawn/execFile/execa with shell: true, and shelljs file commands, not their shell-less twins", () => {
    const src = [
      'import { spawn, execFile } from "node:child_process";',
      'import { execa } from "execa";',
      'import shell from "shelljs";',
      'app.post("/run", async (req, res) => {',
      "  const { file, cmd } = req.body;",
      '  spawn("convert " + file + " out.png", { shell: true }); // VULN CWE-78',
      '  spawn("tar", ["czf", "/tmp/o.tgz", file], { shell: true }); // VULN CWE-78',
      '  spawn("tar", ["czf", "/tmp/o.tgz", file]);',
      '  execFile("convert", [file, "out.png"], { shell: false }, () => undefined);',
      "  await execa(cmd, { shell: true }); // VULN CWE-78",
      '  await execa("ls", [file]);',
      "  shell.cat(file); // VULN CWE-22",
      '  shell.rm("-rf", "/tmp/uploads/" + file); // VULN CWE-22',
      '  shell.cat("/etc/motd");',
      "  res.end();",
      "});",
    ].join("\n");
    expectMarked("shell.ts", src);
  });

  it("does not treat an unrelated promisify as a command", () => {
    const src = [
      'const { promisify } = require("util");',
      'const fs = require("fs");',
      "const sleep = promisify(setTimeout);",
      'app.get("/s", async (req, res) => { await sleep(10); res.json({ ok: req.query.q === "a" }); });',
    ].join("\n");
    expect(findings({ "sleep.js": src })).toEqual([]);
  });
});

describe("javascript breadth: frameworks and stores", () => {
  it("follows Koa, Next.js and NestJS input into SQL, commands and files", () => {
    const src = [
      'import { exec } from "child_process";',
      'import { Pool } from "pg";',
      'import type { NextApiRequest, NextApiResponse } from "next";',
      "const pool = new Pool();",
      'router.get("/k/:id", async (ctx, next) => {',
      '  await pool.query("SELECT * FROM t WHERE id = " + ctx.params.id); // VULN CWE-89',
      '  await pool.query("SELECT * FROM t WHERE id = $1", [ctx.params.id]);',
      "  ctx.redirect(ctx.query.next); // VULN CWE-601",
      "});",
      "export default async function handler(req: NextApiRequest, res: NextApiResponse) {",
      "  const { slug } = req.query;",
      "  await pool.query(`SELECT * FROM posts WHERE slug = '${slug}'`); // VULN CWE-89",
      "}",
      "export class RunController {",
      "  run(@Body() body: { cmd: string }) {",
      "    exec(body.cmd); // VULN CWE-78",
      "  }",
      "}",
    ].join("\n");
    expectMarked("api.ts", src);
  });

  it("covers ORM raw APIs, and leaves their bound forms alone", () => {
    const src = [
      'import { PrismaClient } from "@prisma/client";',
      'import knex from "knex";',
      "const prisma = new PrismaClient();",
      'const db = knex({ client: "pg" });',
      "export async function search(req: Request, res: Response) {",
      "  const q = String(req.query.q);",
      "  await prisma.$queryRawUnsafe(`SELECT * FROM p WHERE t = '${q}'`); // VULN CWE-89",
      "  await prisma.$queryRaw`SELECT * FROM p WHERE t = ${q}`;",
      "  await db(\"users\").whereRaw(`email = '${q}'`); // VULN CWE-89",
      '  await db.raw("select * from users where email = ?", [q]);',
      "}",
      'app.get("/s", search);',
    ].join("\n");
    expectMarked("orm.ts", src);
  });
});
