import { checkGitUri, isInternalAddress } from "./git-uri";

const strict = { allowInsecure: false };
const loose = { allowInsecure: true };

describe("checkGitUri (strict: https only)", () => {
  it.each([
    ["https://github.com/OWASP/NodeGoat.git", "https://github.com/owasp/nodegoat"],
    ["https://gitlab.com/group/sub/project", "https://gitlab.com/group/sub/project"],
    ["https://example.com:8443/a/b.git/", "https://example.com:8443/a/b"],
  ])("accepts %s with canonical %s", (uri, canonical) => {
    const r = checkGitUri(uri, strict);
    expect(r).toMatchObject({ ok: true, canonical });
  });

  it.each([
    ["ext::sh -c touch% /tmp/pwned", /helpers/],
    ["fd::17", /helpers/],
    ["-uupload-pack=touch /tmp/x", /start with '-'/],
    ["--upload-pack=evil", /start with '-'/],
    ["git@github.com:owner/repo.git", /scp-style/],
    ["github.com/owner/repo", /scp-style/],
    ["file:///etc", /must use https/],
    ["/srv/repos/app.git", /Local paths/],
    ["http://github.com/a/b", /must use https/],
    ["ssh://git@github.com/a/b", /must use https/],
    ["git://github.com/a/b", /must use https/],
    ["https://user:secret@github.com/a/b", /credentials/],
    ["https://token@github.com/a/b", /credentials/],
    ["https://127.0.0.1/a", /private, loopback/],
    ["https://[::1]/a", /private, loopback/],
    ["https://169.254.169.254/latest/meta-data", /private, loopback/],
    ["https://10.0.0.5/repo", /private, loopback/],
    ["https://192.168.1.1/repo", /private, loopback/],
    ["https://172.20.0.1/repo", /private, loopback/],
    ["https://2130706433/repo", /private, loopback/],
    ["https://0x7f000001/repo", /private, loopback/],
    ["https://localhost/repo", /local or internal/],
    ["https://metadata.google.internal/x", /local or internal/],
    ["https://[fd00::1]/x", /private, loopback/],
    ["https://[::ffff:127.0.0.1]/x", /private, loopback/],
    ["https://github.com/a/../../b", /'\.\.'/],
    ["https://github.com/a/b?x=1", /query/],
    ["https://github.com/a b", /whitespace/],
    ["https://github.com/a\nb", /whitespace/],
    ["", /empty/],
  ])("refuses %j", (uri, why) => {
    const r = checkGitUri(uri, strict);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toMatch(why);
  });
});

describe("checkGitUri (ALLOW_INSECURE_GIT_URLS)", () => {
  it("accepts file:// URLs and absolute paths", () => {
    expect(checkGitUri("file:///tmp/repo", loose)).toMatchObject({ ok: true, canonical: "file:///tmp/repo" });
    expect(checkGitUri("/tmp/repo.git", loose)).toMatchObject({ ok: true, canonical: "file:///tmp/repo" });
    expect(checkGitUri("http://127.0.0.1:9/x", loose)).toMatchObject({ ok: true });
  });
  it("still refuses transport helpers, options and credentials", () => {
    expect(checkGitUri("ext::sh", loose).ok).toBe(false);
    expect(checkGitUri("-c core.sshCommand=x", loose).ok).toBe(false);
    expect(checkGitUri("http://u:p@127.0.0.1/x", loose).ok).toBe(false);
    expect(checkGitUri("file://host/tmp/x", loose).ok).toBe(false);
    expect(checkGitUri("relative/path", loose).ok).toBe(false);
  });
});

describe("isInternalAddress", () => {
  it.each(["127.0.0.1", "10.1.2.3", "172.31.255.255", "192.168.0.1", "169.254.1.1", "100.64.0.1", "0.0.0.0", "::1", "fe80::1", "fc00::1", "224.0.0.1"])(
    "%s is internal",
    (a) => expect(isInternalAddress(a)).toBe(true),
  );
  it.each(["140.82.112.3", "8.8.8.8", "172.32.0.1", "2606:4700::1111"])("%s is public", (a) => expect(isInternalAddress(a)).toBe(false));
});
