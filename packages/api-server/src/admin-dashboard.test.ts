// The queue dashboard in a real browser: the API on 127.0.0.1 (random port), a headless
// Chromium driven by playwright-core (CHROMIUM_PATH, else chromium, chromium-browser or
// google-chrome on PATH; Debian's package is `chromium`), real PostgreSQL, Redis and BullMQ.
// Every request the page makes to anything but 127.0.0.1 is aborted and recorded; the test
// asserts there were none.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { requireChromium } from "@ax/testkit";
import { failScanJobs, instanceAdminToken } from "../test/admin-support";
import { createApiHarness, type ApiHarness } from "@ax/testkit/api";

const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-dev-shm-usage",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-default-apps",
  "--disable-extensions",
  "--metrics-recording-only",
  "--disable-domain-reliability",
];

let h: ApiHarness;
let server: http.Server;
let base: string;
let browser: Browser;
let admin: string;
const outside: string[] = [];
/** Console errors of every page: a resource refused by the dashboard's CSP would show here. */
const consoleErrors: string[] = [];

beforeAll(async () => {
  // First, so that a machine without a browser hears which package to install.
  const executablePath = requireChromium();
  h = await createApiHarness({ env: { RATE_LIMIT_ENABLED: "false" } });
  admin = await instanceAdminToken(h);
  server = http.createServer(h.app);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await chromium.launch({ executablePath, headless: true, args: CHROMIUM_ARGS });
  // A failed job, so that the failed view has something to retry or clean.
  await h.deps.queue.queue("scans").add("scan.run", { scan_id: "s-1", organization_id: "o-1" }, { jobId: "dash-failed", attempts: 1 });
  await failScanJobs(h, 1, "clone failed");
}, 60_000);

afterAll(async () => {
  await browser?.close();
  if (server) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  await h?.close();
});

/** A browser context whose requests leave 127.0.0.1 never. */
async function loopbackContext(): Promise<BrowserContext> {
  const context = await browser.newContext();
  await context.route("**/*", (route) => {
    const url = new URL(route.request().url());
    if (url.hostname === "127.0.0.1") return route.continue();
    outside.push(url.href);
    return route.abort();
  });
  return context;
}

/** A context holding a dashboard session, obtained the way an operator would: POST /admin/session. */
async function signedIn(readOnly = false): Promise<{ context: BrowserContext; page: Page }> {
  const context = await loopbackContext();
  const res = await context.request.post(`${base}/api/v2/admin/session${readOnly ? "?read_only=true" : ""}`, {
    headers: { "X-AX-KEY": admin },
  });
  expect(res.status()).toBe(200);
  const cookies = await context.cookies(`${base}/admin/queues`);
  expect(cookies).toEqual([
    expect.objectContaining({ name: "ax_admin_session", path: "/admin", httpOnly: true, sameSite: "Strict", secure: false }),
  ]);
  const page = await context.newPage();
  page.on("console", (m) => m.type() === "error" && consoleErrors.push(m.text()));
  return { context, page };
}

afterEach(() => {
  expect(outside).toEqual([]);
  expect(consoleErrors).toEqual([]);
});

test("with a session the dashboard shows the service's queues", async () => {
  const { context, page } = await signedIn();
  const res = await page.goto(`${base}/admin/queues`);
  expect(res?.status()).toBe(200);
  for (const name of ["scans", "webhooks", "maintenance"]) await page.getByText(name, { exact: true }).first().waitFor({ timeout: 20_000 });
  await page.goto(`${base}/admin/queues/queue/scans?status=failed`);
  await page.getByText("Clean all").first().waitFor({ timeout: 20_000 });
  expect(await page.getByText("Retry all").count()).toBeGreaterThan(0);
  if (process.env.AX_SCREENSHOT) await page.screenshot({ path: process.env.AX_SCREENSHOT });
  await context.close();
}, 60_000);

test("without the cookie the dashboard is refused", async () => {
  const context = await loopbackContext();
  const page = await context.newPage();
  const res = await page.goto(`${base}/admin/queues`);
  expect(res?.status()).toBe(401);
  expect(await page.textContent("h1")).toBe("401");
  await context.close();
}, 60_000);

test("a read-only session shows the queues without retry or clean buttons", async () => {
  const { context, page } = await signedIn(true);
  await page.goto(`${base}/admin/queues/queue/scans?status=failed`);
  await page.getByText("dash-failed").first().waitFor({ timeout: 20_000 });
  for (const name of ["scans", "webhooks", "maintenance"]) await page.getByText(name, { exact: true }).first().waitFor();
  expect(await page.getByText("Clean all").count()).toBe(0);
  expect(await page.getByText("Retry all").count()).toBe(0);
  expect(await page.getByRole("button", { name: /^(Retry|Clean)$/ }).count()).toBe(0);
  await context.close();
}, 60_000);
