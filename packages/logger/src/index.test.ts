import { Writable } from "node:stream";
import winston from "winston";
import { createLogger, redact } from "./index";

describe("redaction", () => {
  it("removes tokens, credential headers and URL credentials", () => {
    const token = "axk_" + "a".repeat(46);
    const out = redact({
      headers: { "x-ax-key": token, accept: "json" },
      message: `bad token ${token}`,
      url: "https://user:pw@github.com/x",
    }) as Record<string, Record<string, string> | string>;
    expect(out.headers).toEqual({ "x-ax-key": "[REDACTED]", accept: "json" });
    expect(out.message).toBe("bad token axk_[REDACTED]");
    expect(out.url).toBe("https://[REDACTED]@github.com/x");
  });

  it("never writes a token through the logger", () => {
    const lines: string[] = [];
    const logger = createLogger({ level: "info", format: "json" });
    logger.clear().add(new winston.transports.Stream({ stream: new Writable({ write: (c, _e, cb) => (lines.push(String(c)), cb()) }) }));
    const token = "axk_" + "Z".repeat(46);
    logger.info(`login with ${token}`, { token, nested: { authorization: "Bearer x" } });
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain("ZZZZ");
    expect(lines[0]).not.toContain("Bearer");
    expect(JSON.parse(lines[0]!)).toMatchObject({ token: "[REDACTED]", nested: { authorization: "[REDACTED]" } });
  });

  it("removes webhook signing secrets from text and secret-named fields", () => {
    const secret = "whsec_" + "Ab-_9".repeat(9).slice(0, 43);
    const out = redact({ message: `rotated to ${secret}`, webhook_secret: secret, secret }) as Record<string, string>;
    expect(out).toEqual({ message: "rotated to whsec_[REDACTED]", webhook_secret: "[REDACTED]", secret: "[REDACTED]" });
  });
});
