// FAKE IN THIS FILE: the downstream feedback API, a small HTTP server on 127.0.0.1 that records
// what it receives (the real one cannot run in the test environment). Everything else is real:
// PostgreSQL, Redis, the app, the shipped review model and chat assistant.
//
// Issue 17: feedback relayed whatever group_id the caller sent. It now relays the organization
// and group the AI request was made in, read from the request's record.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import request from "supertest";
import { addMember, createGroup, type BootstrapResult } from "@ax/db";
import { createApiHarness, type ApiHarness } from "@ax/testkit/api";

interface Relayed {
  request_id: string;
  feedback: boolean;
  organization_id: string;
  group_id: string;
  kind: string;
  model: string;
}

let h: ApiHarness;
let server: Server;
const received: Relayed[] = [];
let groupA: string;
let groupB: string;
let other: BootstrapResult;
const key = () => ({ "X-AX-KEY": h.tenant.token });

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString("utf8")));
    req.on("end", () => {
      received.push(JSON.parse(body) as Relayed);
      res.writeHead(202, { "Content-Type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  h = await createApiHarness({
    env: { AI_FEEDBACK_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/feedback`, AI_FEEDBACK_TIMEOUT_MS: "2000" },
  });
  groupA = (await createGroup(h.deps.db, h.tenant.organization_id, "team-a"))!.id;
  groupB = (await createGroup(h.deps.db, h.tenant.organization_id, "team-b"))!.id;
  other = await h.otherTenant();
});
afterAll(async () => {
  await h.close();
  await new Promise((r) => server.close(r));
});

/** A review in the caller's first organization, in `group` when one is given. */
async function review(group?: string): Promise<string> {
  const query = `?organization_id=${h.tenant.organization_id}${group ? `&group_id=${group}` : ""}`;
  const res = await request(h.app).post(`/api/v2/ai/review${query}`).set(key()).send({ code: "eval(input())" });
  expect(res.status).toBe(200);
  return res.body.request_id as string;
}

const vote = (requestId: string, org: string, group: string, status = "true") =>
  request(h.app).get(`/api/v2/ai/feedback/${requestId}/${status}?organization_id=${org}&group_id=${group}`).set(key());

describe("feedback relays the AI request's own organization and group", () => {
  it("a review made in a group: relayed with that group, stored with it", async () => {
    const id = await review(groupA);
    const res = await vote(id, h.tenant.organization_id, groupA);
    expect(res.status).toBe(200);
    expect(received.at(-1)).toMatchObject({
      request_id: id,
      feedback: true,
      organization_id: h.tenant.organization_id,
      group_id: groupA,
      kind: "review",
    });
    const stored = await h.deps.db.selectFrom("ai_feedback").selectAll().where("request_id", "=", id).executeTakeFirstOrThrow();
    expect(stored).toMatchObject({ organization_id: h.tenant.organization_id, group_id: groupA, relay_status: "relayed" });
  });

  it("another group of the same organization is refused with the spec's group error, and nothing is relayed", async () => {
    const id = await review(groupA);
    const before = received.length;
    const res = await vote(id, h.tenant.organization_id, groupB);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 400, error: "validation_failed", message: "A valid group_id is required." });
    expect(received.length).toBe(before);
    expect(await h.deps.db.selectFrom("ai_feedback").selectAll().where("request_id", "=", id).executeTakeFirst()).toBeUndefined();
  });

  it("a chat answer in a group: relayed with the chat's group", async () => {
    const chat = await request(h.app).post("/api/v2/ai/chatbot").set(key()).send({ prompt: "who am I?", group_id: groupB });
    expect(chat.status).toBe(200);
    const id = chat.headers["x-ai-request-id"] as string;
    expect((await vote(id, h.tenant.organization_id, groupA, "FALSE")).body).toEqual({
      code: 400,
      error: "validation_failed",
      message: "A valid group_id is required.",
    });
    expect((await vote(id, h.tenant.organization_id, groupB, "FALSE")).status).toBe(200);
    expect(received.at(-1)).toMatchObject({
      request_id: id,
      feedback: false,
      organization_id: h.tenant.organization_id,
      group_id: groupB,
      kind: "chat",
    });
  });

  it("a request made in no group is attributed to the group named, which must be of its organization", async () => {
    const id = await review();
    expect((await vote(id, h.tenant.organization_id, groupB)).status).toBe(200);
    expect(received.at(-1)).toMatchObject({ request_id: id, organization_id: h.tenant.organization_id, group_id: groupB });
    expect((await vote(id, h.tenant.organization_id, other.group_id)).body).toEqual({
      code: 400,
      error: "validation_failed",
      message: "A valid group_id is required.",
    });
  });

  it("a request of another of the caller's organizations is refused with the organization error; another tenant's is not found", async () => {
    // The caller joins a second organization, and asks for a review there.
    const second = await h.otherTenant();
    await addMember(h.deps.db, second.organization_id, h.tenant.user_id, "member");
    const theirs = await request(h.app).post(`/api/v2/ai/review?organization_id=${second.organization_id}`).set(key()).send({ code: "x" });
    expect(theirs.status).toBe(200);
    const res = await vote(theirs.body.request_id as string, h.tenant.organization_id, h.tenant.group_id);
    expect(res.body).toEqual({ code: 400, error: "validation_failed", message: "A valid organization_id is required." });
    // Named in its own organization, it is accepted and relayed there.
    expect((await vote(theirs.body.request_id as string, second.organization_id, second.group_id)).status).toBe(200);
    expect(received.at(-1)).toMatchObject({ organization_id: second.organization_id, group_id: second.group_id });

    const stranger = await request(h.app).post("/api/v2/ai/review").set("X-AX-KEY", other.token).send({ code: "x" });
    const unknown = await vote(stranger.body.request_id as string, h.tenant.organization_id, h.tenant.group_id);
    expect(unknown.body).toEqual({ code: 404, error: "not_found", message: "AI request not found." });
  });

  it("a review in an unknown group is 404, and records nothing", async () => {
    const res = await request(h.app)
      .post(`/api/v2/ai/review?organization_id=${h.tenant.organization_id}&group_id=${other.group_id}`)
      .set(key())
      .send({ code: "x" });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ code: 404, error: "not_found", message: "Group not found." });
  });
});

describe("feedback input the schema refuses answers the design's sentences", () => {
  it.each([
    ["no organization_id", (id: string) => `/api/v2/ai/feedback/${id}/true?group_id=${groupA}`, "A valid organization_id is required."],
    [
      "an empty organization_id",
      (id: string) => `/api/v2/ai/feedback/${id}/true?organization_id=&group_id=${groupA}`,
      "A valid organization_id is required.",
    ],
    [
      "no group_id",
      (id: string) => `/api/v2/ai/feedback/${id}/true?organization_id=${h.tenant.organization_id}`,
      "A valid group_id is required.",
    ],
    [
      "a status that is not true or false",
      (id: string) => `/api/v2/ai/feedback/${id}/yes?organization_id=${h.tenant.organization_id}&group_id=${groupA}`,
      "status must be true or false.",
    ],
  ])("%s", async (_what, url, message) => {
    const id = await review(groupA);
    const res = await request(h.app).get(url(id)).set(key());
    expect(res.body).toEqual({ code: 400, error: "validation_failed", message });
  });

  it("is documented as it behaves: both query parameters required, status an enum", async () => {
    const doc = (await request(h.app).get("/api/v2/openapi.json")).body;
    const params = doc.paths["/api/v2/ai/feedback/{request_id}/{status}"].get.parameters as {
      name: string;
      in: string;
      required: boolean;
      schema: { enum?: string[] };
    }[];
    const by = Object.fromEntries(params.map((p) => [`${p.in}.${p.name}`, p]));
    expect(by["query.organization_id"]?.required).toBe(true);
    expect(by["query.group_id"]?.required).toBe(true);
    expect(by["path.status"]?.schema.enum).toEqual(["true", "false"]);
    const reviewParams = doc.paths["/api/v2/ai/review"].post.parameters.map((p: { name: string }) => p.name);
    expect(reviewParams).toEqual(["organization_id", "group_id"]);
  });
});
