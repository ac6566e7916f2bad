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

// Issue 17: values that were accepted and then failed in the worker as "internal error".
describe("checkGitUri: hosts and escapes the URL parser would rewrite", () => {
  it.each([
    ["https:///x", /must name a host/], // parsed as https://x/: another host
    ["https:////github.com/o/r", /must name a host/],
    ["https://\\\\github.com/o/r", /must name a host/], // backslashes read as slashes: same thing
    ["https://@github.com/o/r", /credentials/], // an empty user, dropped by the parser
    ["https://a/%ZZ", /'%' that is not followed by two hexadecimal digits/],
    ["https://github.com/o/r%", /'%' that is not followed/],
    ["https://github.com/o/r%4", /'%' that is not followed/],
    ["https://github.com/o/r%0a--upload-pack=x", /control characters, escaped or not/],
    ["https://github.com/o/%00r", /control characters, escaped or not/],
    ["https://git%68ub.com/o/r", /host must not contain percent-escapes/],
    ["https://xn--a.com/o/r", /not a valid internationalised domain name/],
    ["https://exa\u0000mple.com/o/r", /control characters/],
    ["https://xn--zz-.com/o/r", /not a valid host name/], // Punycode for plain "zz": another name
    ["https://a_b.example.com/o/r", /not a valid host name/],
    ["https://-a.example.com/o/r", /not a valid host name/],
    ["https://a..b.com/o/r", /not a valid host name/],
    [`https://${"a".repeat(64)}.com/o/r`, /not a valid host name/],
    [`https://${"abcdefghi.".repeat(26)}com/o/r`, /not a valid host name/],
  ])("refuses %j", (uri, why) => {
    for (const policy of [strict, loose]) {
      const r = checkGitUri(uri, policy);
      expect(r.ok).toBe(false);
      if (!r.ok) {
        expect(r.reason).toMatch(why);
        expect(r.reason).not.toContain(uri);
      }
    }
  });

  it("converts an internationalised host to its ASCII form, and clones that", () => {
    expect(checkGitUri("https://exämple.com/x.git", strict)).toEqual({
      ok: true,
      url: "https://xn--exmple-cua.com/x.git",
      canonical: "https://xn--exmple-cua.com/x",
      host: "xn--exmple-cua.com",
    });
    // The same host written in either form is one project.
    expect(checkGitUri("https://XN--EXMPLE-CUA.com/x", strict)).toMatchObject({ ok: true, canonical: "https://xn--exmple-cua.com/x" });
  });

  it("still accepts ordinary hosts, ports, IPv6 literals and valid escapes", () => {
    expect(checkGitUri("https://git.example.com:8443/o/r%20x.git", strict)).toMatchObject({ ok: true, host: "git.example.com" });
    expect(checkGitUri("https://[2606:4700::1111]/o/r", strict)).toMatchObject({ ok: true, host: "2606:4700::1111" });
    expect(checkGitUri("http://127.0.0.1:9/o/r", loose)).toMatchObject({ ok: true, host: "127.0.0.1" });
    expect(checkGitUri("file:///srv/repos/app.git", loose)).toMatchObject({ ok: true });
  });
});

describe("isInternalAddress", () => {
  it.each([
    "127.0.0.1",
    "10.1.2.3",
    "172.31.255.255",
    "192.168.0.1",
    "169.254.1.1",
    "100.64.0.1",
    "0.0.0.0",
    "::1",
    "fe80::1",
    "fc00::1",
    "224.0.0.1",
  ])("%s is internal", (a) => expect(isInternalAddress(a)).toBe(true));
  it.each(["140.82.112.3", "8.8.8.8", "172.32.0.1", "2606:4700::1111"])("%s is public", (a) => expect(isInternalAddress(a)).toBe(false));
});
