/**
 * Hostile `git_uri` values in the worker, with allowInsecure off: refused before any connection
 * (see hostile-repos.test.ts and test/hostile-harness.ts).
 */
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { cloneRepository } from "./clone";
import { ScanInputError } from "./errors";
import type { ResolveHost } from "./git/resolve-host";
import { connectionRecorder, loopbackHostsName } from "../test/hostile-fixtures";
import { MIB, root, markers, hostile } from "../test/hostile-harness";

describe("hostile git_uri in the worker: refused before any connection", () => {
  let recorder: Awaited<ReturnType<typeof connectionRecorder>>;
  const loopbackName = loopbackHostsName(existsSync("/etc/hosts") ? readFileSync("/etc/hosts", "utf8") : "");
  // A name that the system resolver maps to 127.x from /etc/hosts, so git, if allowed to
  // connect, would reach the recorder. Without one, the refusals still hold but prove less.
  const host = loopbackName ?? "repo.invalid";

  beforeAll(async () => {
    recorder = await connectionRecorder();
  });
  afterAll(() => recorder.close());

  async function cloneStrict(gitUri: string, answer: Awaited<ReturnType<ResolveHost>> | Error) {
    const asked: string[] = [];
    const resolveHost: ResolveHost = async (name) => {
      asked.push(name);
      if (answer instanceof Error) throw answer;
      return answer;
    };
    const dest = join(root, `strict-${randomBytes(4).toString("hex")}`);
    const error = await cloneRepository({ gitUri, dest, allowInsecure: false, timeoutMs: 15_000, maxRepoBytes: MIB, resolveHost }).then(
      () => null,
      (e: unknown) => e as Error,
    );
    return { error, asked, destExists: existsSync(dest) };
  }

  it.each([
    "https://127.0.0.1:PORT/r.git",
    "https://127.1:PORT/r.git",
    "https://2130706433:PORT/r.git",
    "https://0x7f000001:PORT/r.git",
    "https://0177.0.0.1:PORT/r.git",
    "https://[::1]:PORT/r.git",
    "https://[::ffff:127.0.0.1]:PORT/r.git",
    "https://localhost:PORT/r.git",
    "https://LOCALHOST.:PORT/r.git",
    "https://\u24db\u24de\u24d2\u24d0\u24db\u24d7\u24de\u24e2\u24e3:PORT/r.git",
    "https://\uff11\uff12\uff17.0.0.1:PORT/r.git",
    "http://127.0.0.1:PORT/r.git",
    "https://user:pass@127.0.0.1:PORT/r.git",
    "ext::sh -c touch% MARKERS/ext",
    "--upload-pack=touch MARKERS/upload-pack",
    "-oProxyCommand=touch MARKERS/proxy",
    "file:///etc",
    "/etc",
    "git@127.0.0.1:r.git",
  ])("%s is refused at validation: no lookup, no connection", async (template) => {
    const uri = template.replace("PORT", String(recorder.port)).replace("MARKERS", markers);
    hostile(`git_uri ${uri}`);
    const { error, asked, destExists } = await cloneStrict(uri, ["203.0.113.7"]);
    expect(error).toBeInstanceOf(ScanInputError);
    expect({ asked, destExists, connections: recorder.connections() }).toEqual({ asked: [], destExists: false, connections: 0 });
  });

  it.each([
    [["10.0.0.5"]],
    [["169.254.169.254"]],
    [["127.0.0.1"]],
    [["::1"]],
    [["fe80::1"]],
    [["fd00::7"]],
    [["::ffff:10.0.0.1"]],
    [["192.168.1.1"]],
    [["100.64.0.1"]],
    [["203.0.113.7", "10.1.2.3"]],
  ])("a name resolving to %j is refused at resolution: no connection", async (answer) => {
    hostile(`git_uri host resolving to ${answer.join(",")}`);
    const { error, asked, destExists } = await cloneStrict(`https://${host}:${recorder.port}/org/repo.git`, answer);
    expect(error).toBeInstanceOf(ScanInputError);
    expect((error as Error).message).toBe(`The host ${host} resolves to a private, loopback or link-local address.`);
    expect({ asked, destExists, connections: recorder.connections() }).toEqual({ asked: [host], destExists: false, connections: 0 });
  });

  it("a name that does not resolve is refused with a reason: no connection", async () => {
    hostile("git_uri host that does not resolve");
    const { error } = await cloneStrict(
      `https://${host}:${recorder.port}/org/repo.git`,
      Object.assign(new Error("nope"), { code: "ENOTFOUND" }),
    );
    expect((error as Error).message).toBe(`The host ${host} could not be resolved.`);
    expect(recorder.connections()).toBe(0);
  });

  (loopbackName ? it : it.skip)("control: when the resolver says public, git does connect (to the loopback recorder)", async () => {
    const before = recorder.connections();
    const { error } = await cloneStrict(`https://${host}:${recorder.port}/org/repo.git`, ["203.0.113.7"]);
    expect(error).not.toBeNull();
    expect(recorder.connections()).toBeGreaterThan(before);
  });
});
