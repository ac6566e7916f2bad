import { checkWebhookUrl, signWebhookBody, verifyWebhookSignature } from "./webhook";

const strict = { allowInsecure: false };
const insecure = { allowInsecure: true };
const reason = (url: string, policy = strict) => {
  const r = checkWebhookUrl(url, policy);
  return r.ok ? "ok" : r.reason;
};

describe("webhook target URLs", () => {
  it("accepts public https URLs only, by default", () => {
    expect(reason("https://hooks.example.test/ax?team=1")).toBe("ok");
    expect(reason("http://hooks.example.test/ax")).toMatch(/https/);
    expect(reason("ftp://hooks.example.test/ax")).toMatch(/https/);
    expect(reason("https://user:pw@hooks.example.test/")).toMatch(/credentials/);
    expect(reason("not a url")).toMatch(/whitespace|valid/);
  });

  it.each([
    "https://127.0.0.1/x",
    "https://[::1]/x",
    "https://10.0.0.5/x",
    "https://169.254.169.254/latest",
    "https://2130706433/x",
    "https://localhost/x",
    "https://metadata.internal/x",
    "https://printer.local/x",
    "https://[fd00::1]/x",
  ])("refuses the internal target %s", (url) => expect(reason(url)).toMatch(/local|internal|private/));

  it("with WEBHOOK_ALLOW_INSECURE_TARGETS allows http and loopback, never private networks", () => {
    expect(reason("http://127.0.0.1:8080/x", insecure)).toBe("ok");
    expect(reason("http://localhost:8080/x", insecure)).toBe("ok");
    expect(reason("http://10.0.0.5/x", insecure)).toMatch(/private/);
    expect(reason("http://169.254.169.254/x", insecure)).toMatch(/private/);
    expect(reason("http://metadata.internal/x", insecure)).toMatch(/internal/);
  });
});

describe("signatures", () => {
  it("verify with the secret within five minutes, and not otherwise", () => {
    const body = '{"id":"e1"}';
    const now = 1_700_000_000;
    const header = signWebhookBody("whsec_a", body, now);
    expect(header).toMatch(/^t=1700000000,v1=[0-9a-f]{64}$/);
    expect(verifyWebhookSignature("whsec_a", body, header, now + 299)).toBe(true);
    expect(verifyWebhookSignature("whsec_a", body, header, now + 301)).toBe(false);
    expect(verifyWebhookSignature("whsec_b", body, header, now)).toBe(false);
    expect(verifyWebhookSignature("whsec_a", `${body} `, header, now)).toBe(false);
  });
});
