/**
 * Everyday application-security practices as short topics, written for this assistant.
 * CWE ids are MITRE's; only weaknesses present in the catalogue are listed.
 */
import type { AppSecTopic } from "./topic";

const cheatSheet = (name: string) => `https://cheatsheetseries.owasp.org/cheatsheets/${name}_Cheat_Sheet.html`;

export const PRACTICE_TOPICS: readonly AppSecTopic[] = [
  {
    id: "secrets-management",
    title: "Secrets management",
    keywords: ["secrets", "api keys", "credentials", "tokens", "vault", "environment variables", "leaked secret", "hardcoded secret"],
    body: [
      `A secret in source code is shared with everyone who can read the repository, every clone and every build log ` +
        `— and it stays in git history after it is deleted.`,
      ``,
      `- Load secrets at run time from a secret manager (Vault, a cloud secret manager) or the deployment's injected ` +
        `environment, never from the repository.`,
      `- Give each service its own credential with the least privilege it needs, so one leak is contained.`,
      `- Prefer short-lived credentials (workload identity, OIDC federation) over long-lived keys.`,
      `- Scan commits for secrets before they are pushed and in CI.`,
      `- When a secret leaks, **rotate it first**; rewriting history does not un-leak it.`,
    ].join("\n"),
    cwes: ["CWE-798", "CWE-259", "CWE-321", "CWE-532"],
    references: [cheatSheet("Secrets_Management")],
  },
  {
    id: "supply-chain",
    title: "Dependency and supply-chain risk",
    keywords: ["supply chain", "dependencies", "sca", "typosquatting", "dependency confusion", "lockfile", "sbom", "malicious package"],
    body: [
      `Beyond known CVEs, dependencies can be malicious: typosquatted names, hijacked maintainer accounts, install ` +
        `scripts that run on developer machines and CI, or an internal package name claimed on a public registry ` +
        `(dependency confusion).`,
      ``,
      `- Commit lockfiles and install with them (\`npm ci\`), so builds use exactly what was reviewed.`,
      `- Scope internal packages and point those scopes at your private registry.`,
      `- Review new dependencies: maintenance, popularity, install scripts, permissions.`,
      `- Run software composition analysis in CI and produce an SBOM for releases.`,
      `- Give CI jobs only the credentials they need, and keep publishing credentials separate.`,
    ].join("\n"),
    cwes: ["CWE-1104", "CWE-1357", "CWE-494", "CWE-829"],
    references: [cheatSheet("Vulnerable_Dependency_Management"), "https://owasp.org/www-project-dependency-check/"],
  },
  {
    id: "jwt-pitfalls",
    title: "JWT pitfalls",
    keywords: ["jwt", "json web token", "bearer token", "alg none", "token signature", "token expiry", "jws"],
    body: [
      `JSON Web Tokens are signed, not encrypted: anyone holding one can read its claims. Most JWT vulnerabilities ` +
        `come from verifying them loosely.`,
      ``,
      `- Verify the signature on every request with a fixed, expected algorithm; never accept \`alg: none\` or let ` +
        `the token choose between HMAC and RSA.`,
      `- Check \`exp\`, \`nbf\`, \`iss\` and \`aud\`; keep lifetimes short and refresh them.`,
      `- Use a long random secret for HMAC, or asymmetric keys when several services verify.`,
      `- Put nothing secret in the payload.`,
      `- Plan for revocation (short expiry plus a deny list or session check), because a stateless token cannot be ` + `"logged out".`,
      `- In browsers, prefer an HttpOnly cookie over localStorage, where any XSS can read the token.`,
    ].join("\n"),
    cwes: ["CWE-347", "CWE-345", "CWE-613", "CWE-287"],
    references: [cheatSheet("JSON_Web_Token_for_Java")],
  },
  {
    id: "cors",
    title: "CORS (cross-origin resource sharing)",
    keywords: ["cors", "cross-origin", "access-control-allow-origin", "same-origin policy", "preflight", "origin"],
    body: [
      `CORS relaxes the browser's same-origin policy: it tells browsers which other origins may read your responses. ` +
        `It is not an access-control mechanism for your API — requests still arrive; CORS only decides whether a ` +
        `script on another site can read the answer.`,
      ``,
      `- Allow a fixed list of trusted origins; do not reflect the request's \`Origin\` header back.`,
      `- Never combine \`Access-Control-Allow-Credentials: true\` with a wildcard or reflected origin.`,
      `- Do not allow the \`null\` origin.`,
      `- Keep authorization checks on the server regardless of CORS.`,
    ].join("\n"),
    cwes: ["CWE-942", "CWE-346"],
    references: [cheatSheet("HTML5_Security")],
  },
  {
    id: "csp",
    title: "Content Security Policy (CSP)",
    keywords: ["csp", "content security policy", "script-src", "nonce", "inline scripts", "defense in depth"],
    body: [
      `A Content Security Policy is a response header that tells the browser where scripts, styles, frames and other ` +
        `resources may come from. A strict policy turns many cross-site scripting bugs into blocked requests instead ` +
        `of account takeovers; it complements output encoding, it does not replace it.`,
      ``,
      `- Prefer a nonce- or hash-based policy: \`script-src 'nonce-<random>' 'strict-dynamic'; object-src 'none'; ` + `base-uri 'none'\`.`,
      `- Avoid \`'unsafe-inline'\` and \`'unsafe-eval'\`; move inline handlers into script files.`,
      `- Add \`frame-ancestors\` to control who may frame your pages (clickjacking).`,
      `- Roll out with \`Content-Security-Policy-Report-Only\` first and watch the reports.`,
    ].join("\n"),
    cwes: ["CWE-1021", "CWE-693"],
    references: [cheatSheet("Content_Security_Policy")],
  },
  {
    id: "cookie-flags",
    title: "Cookie security flags",
    keywords: ["cookies", "secure cookies", "httponly", "secure flag", "samesite", "session cookie", "cookie prefix"],
    body: [
      `Session and authentication cookies should carry every flag that narrows who can read or send them:`,
      ``,
      `- **Secure** — sent over HTTPS only.`,
      `- **HttpOnly** — invisible to JavaScript, so an XSS bug cannot steal it.`,
      `- **SameSite=Lax** (or **Strict**) — not sent on most cross-site requests, a strong layer against CSRF.`,
      `- A narrow **Path** and no **Domain** attribute unless subdomains need it; the \`__Host-\` prefix enforces ` + `this.`,
      `- Short lifetimes for session cookies, and no sensitive data in the cookie value itself.`,
    ].join("\n"),
    cwes: ["CWE-614", "CWE-1004", "CWE-1275", "CWE-315"],
    references: [cheatSheet("Session_Management")],
  },
  {
    id: "password-storage",
    title: "Password storage",
    keywords: ["password storage", "store passwords", "password hashing", "argon2", "bcrypt", "scrypt", "pbkdf2", "salt", "pepper"],
    body: [
      `Store passwords so that a stolen database does not reveal them: with a slow, salted, one-way password hash — ` +
        `never in plain text, never encrypted (encryption can be reversed), never with a fast hash such as MD5 or ` +
        `SHA-256 alone.`,
      ``,
      `- Use **Argon2id**; if unavailable, **scrypt**, **bcrypt** (mind its 72-byte input limit) or **PBKDF2** with ` +
        `a high iteration count (FIPS contexts).`,
      `- Let the library generate a unique random salt per password and store it with the hash.`,
      `- Tune the cost so one hash takes a noticeable fraction of a second on your servers, and raise it over time ` + `(rehash on login).`,
      `- Optionally add a pepper: a secret kept outside the database, in a secret manager.`,
      `- Compare with the library's verify function, and check new passwords against breached-password lists.`,
    ].join("\n"),
    cwes: ["CWE-916", "CWE-759", "CWE-760", "CWE-256", "CWE-257", "CWE-328"],
    references: [cheatSheet("Password_Storage")],
  },
  {
    id: "rate-limiting",
    title: "Rate limiting and brute-force protection",
    keywords: ["rate limiting", "throttling", "brute force", "credential stuffing", "denial of service", "quota", "429"],
    body: [
      `Without limits, an attacker can guess passwords or one-time codes, scrape data, run up your cloud bill or ` +
        `exhaust resources for everyone else.`,
      ``,
      `- Limit per user, per API key and per source address, with stricter limits on login, password reset, OTP and ` + `signup endpoints.`,
      `- Answer with HTTP 429 and a \`Retry-After\` header; use exponential back-off or temporary lockouts for ` +
        `repeated failures rather than permanent lockouts attackers can abuse.`,
      `- Bound request sizes, page sizes, upload sizes and query complexity (GraphQL depth) too.`,
      `- Enforce limits in a shared store (Redis) so they hold across instances.`,
    ].join("\n"),
    cwes: ["CWE-307", "CWE-770", "CWE-799", "CWE-400"],
    references: [cheatSheet("Denial_of_Service")],
  },
  {
    id: "sensitive-logging",
    title: "Logging sensitive data",
    keywords: ["logging", "sensitive data", "pii", "redaction", "log injection", "secrets in logs", "tokens in logs"],
    body: [
      `Logs are copied widely — to aggregators, support tools and vendors — and kept for a long time, so whatever is ` +
        `logged leaks with them.`,
      ``,
      `- Never log passwords, session ids, tokens, API keys, card numbers or full personal records; redact them ` +
        `centrally in the logger rather than at each call site.`,
      `- Log identifiers (user id, request id) instead of whole objects or request bodies.`,
      `- Neutralize line breaks and control characters in user input before logging, so entries cannot be forged.`,
      `- Restrict who can read logs and how long they are kept.`,
    ].join("\n"),
    cwes: ["CWE-532", "CWE-117", "CWE-200"],
    references: [cheatSheet("Logging")],
  },
  {
    id: "sast-dast-sca",
    title: "SAST vs DAST vs SCA",
    keywords: ["sast", "dast", "sca", "static analysis", "dynamic analysis", "software composition analysis", "iast", "scanner types"],
    body: [
      `Three complementary kinds of automated security testing:`,
      ``,
      `- **SAST** (static application security testing) reads source code without running it, following data from ` +
        `inputs to dangerous calls. It finds issues early and points at the exact line, but cannot see configuration ` +
        `or runtime behaviour and reports some false positives.`,
      `- **DAST** (dynamic testing) attacks a running application from the outside, like a black-box tester. It ` +
        `confirms real exploitability and finds misconfiguration, but needs a deployed environment and cannot say ` +
        `which line to fix.`,
      `- **SCA** (software composition analysis) inventories third-party dependencies and matches them against known ` +
        `vulnerabilities and licences.`,
      ``,
      `A code-scanning service like this one runs SAST and SCA on every change; DAST fits later, against a staging ` + `environment.`,
    ].join("\n"),
    cwes: [],
    references: [
      "https://owasp.org/www-community/Source_Code_Analysis_Tools",
      "https://owasp.org/www-community/Vulnerability_Scanning_Tools",
    ],
  },
  {
    id: "threat-modeling",
    title: "Threat modeling",
    keywords: ["threat modeling", "threat model", "stride", "data flow diagram", "attack surface", "trust boundary"],
    body: [
      `Threat modeling is a structured look at a design before (and while) it is built. Four questions cover it: ` +
        `What are we working on? What can go wrong? What are we going to do about it? Did we do a good enough job?`,
      ``,
      `- Draw the data flows and mark the trust boundaries: where data crosses from users, other services or tenants.`,
      `- Walk each element with a checklist such as STRIDE (spoofing, tampering, repudiation, information ` +
        `disclosure, denial of service, elevation of privilege).`,
      `- Record the mitigations as work items and tests, not only as a document.`,
      `- Revisit the model when the design changes.`,
    ].join("\n"),
    cwes: ["CWE-657", "CWE-501"],
    references: [cheatSheet("Threat_Modeling"), "https://owasp.org/www-community/Threat_Modeling"],
  },
  {
    id: "secure-code-review",
    title: "Secure code review",
    keywords: ["code review", "secure code review", "pull request", "review checklist", "peer review"],
    body: [
      `Security review of a change is most effective when it focuses on where trust changes, not on reading every ` + `line equally.`,
      ``,
      `- Follow untrusted input from where it enters to where it is used: queries, commands, file paths, templates, ` +
        `redirects, deserialization.`,
      `- Check every new endpoint for authentication and authorization, including object ownership.`,
      `- Look for secrets, new dependencies, changes to crypto, session or cookie settings, and error messages that ` + `reveal internals.`,
      `- Let automated scanning handle the mechanical patterns so reviewers can spend time on logic and design.`,
      `- Keep changes small enough to review properly.`,
    ].join("\n"),
    cwes: ["CWE-20", "CWE-862", "CWE-798"],
    references: ["https://owasp.org/www-project-code-review-guide/"],
  },
  {
    id: "validation-vs-encoding",
    title: "Input validation vs output encoding",
    keywords: ["input validation", "output encoding", "escaping", "sanitization", "allowlist", "canonicalization"],
    body: [
      `They solve different problems and you need both.`,
      ``,
      `- **Input validation** checks that data is what you expect where it enters: type, length, range, format, ` +
        `against an allowlist. It stops malformed and out-of-range data, and shrinks the attack surface — but "valid" ` +
        `input can still be dangerous (a valid name can contain a quote).`,
      `- **Output encoding** makes data safe for the specific place it is used: HTML-encode for HTML, parameterize ` +
        `for SQL, pass argument arrays to processes, URL-encode for URLs. This is what actually prevents injection.`,
      ``,
      `Validate on the server (client checks are for usability), canonicalize before validating, and encode as late ` +
        `as possible, for the exact context.`,
    ].join("\n"),
    cwes: ["CWE-20", "CWE-116", "CWE-79", "CWE-89"],
    references: [cheatSheet("Input_Validation"), cheatSheet("Cross_Site_Scripting_Prevention")],
  },
  {
    id: "least-privilege",
    title: "Least privilege",
    keywords: ["least privilege", "privileges", "permissions", "root", "service account", "iam", "blast radius"],
    body: [
      `Every user, process and service should have only the permissions it needs, for only as long as it needs them, ` +
        `so a compromise or mistake stays small.`,
      ``,
      `- Run services as an unprivileged user; containers as non-root with a read-only filesystem where possible.`,
      `- Give database accounts only the statements and tables they use; no application connects as the owner or ` + `superuser.`,
      `- Scope cloud IAM roles and API tokens to specific resources and actions; avoid wildcards.`,
      `- Drop elevated privileges right after the step that needs them.`,
      `- Review and remove unused access regularly.`,
    ].join("\n"),
    cwes: ["CWE-250", "CWE-269", "CWE-272"],
    references: ["https://cwe.mitre.org/data/definitions/272.html"],
  },
  {
    id: "tls",
    title: "TLS and transport security",
    keywords: ["tls", "https", "ssl", "certificates", "hsts", "certificate validation", "encryption in transit"],
    body: [
      `Encrypt all traffic — including internal service-to-service traffic — with TLS, and check certificates ` + `properly.`,
      ``,
      `- Support TLS 1.2 and 1.3 only, with modern cipher suites; let the platform's defaults do this where they are ` + `current.`,
      `- Send \`Strict-Transport-Security\` so browsers never fall back to plain HTTP.`,
      `- Never disable certificate or host-name verification in clients (\`rejectUnauthorized: false\`, ` +
        `\`verify=False\`), not even "temporarily".`,
      `- Automate certificate renewal.`,
    ].join("\n"),
    cwes: ["CWE-319", "CWE-295", "CWE-326", "CWE-327"],
    references: [cheatSheet("Transport_Layer_Security")],
  },
  {
    id: "file-upload",
    title: "Secure file upload",
    keywords: ["file upload", "upload", "content type", "web shell", "filename", "malware"],
    body: [
      `Uploaded files can be web shells, malware, oversized bombs, or names that escape the upload directory.`,
      ``,
      `- Allowlist extensions and check the content (magic bytes), not only the client's \`Content-Type\`.`,
      `- Generate the stored file name yourself; never use the user's name as a path.`,
      `- Store uploads outside the web root or in object storage, and serve them with \`Content-Disposition: ` +
        `attachment\` and a safe content type.`,
      `- Limit size and count; scan for malware where it matters.`,
      `- Never execute or include an uploaded file.`,
    ].join("\n"),
    cwes: ["CWE-434", "CWE-22", "CWE-73"],
    references: [cheatSheet("File_Upload")],
  },
  {
    id: "mass-assignment",
    title: "Mass assignment",
    keywords: ["mass assignment", "overposting", "autobinding", "object binding", "isadmin"],
    body: [
      `Frameworks that bind request fields straight onto models let a caller set fields they should not — ` +
        `\`isAdmin\`, \`balance\`, \`ownerId\` — just by adding them to the request body.`,
      ``,
      `- Bind to a dedicated input type or schema listing exactly the allowed fields (a DTO, a Zod schema); reject ` +
        `or drop unknown fields.`,
      `- Never pass the raw request body to an ORM's create or update.`,
      `- Mark sensitive fields read-only in the model where the framework supports it.`,
    ].join("\n"),
    cwes: ["CWE-915"],
    references: [cheatSheet("Mass_Assignment")],
  },
  {
    id: "security-headers",
    title: "HTTP security headers",
    keywords: ["security headers", "hsts", "x-content-type-options", "x-frame-options", "referrer-policy", "permissions-policy", "headers"],
    body: [
      `A few response headers switch on browser protections at almost no cost:`,
      ``,
      `- \`Strict-Transport-Security: max-age=31536000; includeSubDomains\` — HTTPS only.`,
      `- \`Content-Security-Policy\` — where scripts and other resources may load from; \`frame-ancestors\` against ` + `clickjacking.`,
      `- \`X-Content-Type-Options: nosniff\` — no MIME sniffing of responses.`,
      `- \`Referrer-Policy: strict-origin-when-cross-origin\` — no full URLs leaked to other sites.`,
      `- \`Permissions-Policy\` — turn off browser features you do not use.`,
      ``,
      `Set them in one place (middleware or the reverse proxy), and remove headers that advertise server versions.`,
    ].join("\n"),
    cwes: ["CWE-693", "CWE-1021", "CWE-319"],
    references: [cheatSheet("HTTP_Headers"), "https://owasp.org/www-project-secure-headers/"],
  },
  {
    id: "session-management",
    title: "Session management",
    keywords: ["session", "session management", "session fixation", "session timeout", "logout", "session id"],
    body: [
      `A session id is as good as the password while it lives.`,
      ``,
      `- Generate session ids with a secure random generator (at least 128 bits) and keep them only in cookies with ` +
        `Secure, HttpOnly and SameSite set.`,
      `- Issue a new session id at login and on privilege changes (prevents session fixation).`,
      `- Expire sessions after inactivity and after an absolute lifetime; invalidate them on the server at logout.`,
      `- Never put session ids in URLs.`,
    ].join("\n"),
    cwes: ["CWE-384", "CWE-613", "CWE-330", "CWE-614"],
    references: [cheatSheet("Session_Management")],
  },
  {
    id: "csrf",
    title: "Cross-site request forgery (CSRF) protection",
    keywords: ["csrf", "xsrf", "cross-site request forgery", "csrf token", "samesite", "state-changing requests"],
    body: [
      `CSRF tricks a logged-in user's browser into sending a state-changing request to your site, carrying their ` + `cookies.`,
      ``,
      `- Use \`SameSite=Lax\` or \`Strict\` session cookies.`,
      `- For cookie-authenticated, state-changing requests, require an anti-CSRF token (synchronizer token or signed ` +
        `double-submit cookie), as frameworks provide.`,
      `- Never change state on GET.`,
      `- Check \`Origin\` (or \`Sec-Fetch-Site\`) on sensitive requests as an extra layer.`,
      ``,
      `APIs authenticated only with an \`Authorization\` header (not cookies) are not exposed to CSRF in the same ` + `way.`,
    ].join("\n"),
    cwes: ["CWE-352", "CWE-1275"],
    references: [cheatSheet("Cross-Site_Request_Forgery_Prevention")],
  },
  {
    id: "error-handling",
    title: "Error handling and information leakage",
    keywords: ["error handling", "stack trace", "error messages", "information disclosure", "debug", "exceptions"],
    body: [
      `Detailed errors help attackers: stack traces, SQL fragments, file paths and library versions map your system ` + `for them.`,
      ``,
      `- Show users a generic message and a request id; log the details on the server.`,
      `- Handle errors in one place (an error middleware) so nothing slips through unformatted.`,
      `- Fail closed: an error in an authorization check must deny, not allow.`,
      `- Turn off debug pages and verbose errors in production builds.`,
    ].join("\n"),
    cwes: ["CWE-209", "CWE-200", "CWE-755"],
    references: [cheatSheet("Error_Handling")],
  },
];
