/**
 * The OWASP Top 10 (2021) as short topics: what each category is, why it hurts, how to
 * prevent it. Written for this assistant; the category names and CWE ids are OWASP's and
 * MITRE's. Only CWE ids that are weaknesses in the catalogue appear (not categories or views).
 */
import type { AppSecTopic } from "./topic";

const top10 = (slug: string) => `https://owasp.org/Top10/${slug}/`;

export const OWASP_TOPICS: readonly AppSecTopic[] = [
  {
    id: "owasp-top-10",
    title: "OWASP Top 10 (2021)",
    keywords: ["owasp", "top 10", "top ten", "web application risks", "categories"],
    body: [
      `The OWASP Top 10 is a consensus list of the most critical risk categories for web applications, rebuilt every ` +
        `few years from vulnerability data and a community survey. The 2021 edition:`,
      ``,
      `- **A01 Broken Access Control** — users act outside their permissions.`,
      `- **A02 Cryptographic Failures** — sensitive data exposed by missing or weak cryptography.`,
      `- **A03 Injection** — untrusted data interpreted as code or commands (SQL, OS, XSS, …).`,
      `- **A04 Insecure Design** — flaws in the design itself, not just the code.`,
      `- **A05 Security Misconfiguration** — unsafe defaults, verbose errors, open cloud storage.`,
      `- **A06 Vulnerable and Outdated Components** — known-vulnerable libraries and runtimes.`,
      `- **A07 Identification and Authentication Failures** — weak login, session and credential handling.`,
      `- **A08 Software and Data Integrity Failures** — trusting code or data without verifying it.`,
      `- **A09 Security Logging and Monitoring Failures** — attacks that nobody notices.`,
      `- **A10 Server-Side Request Forgery** — the server fetches a URL the attacker chose.`,
      ``,
      `It is an awareness document, not a complete standard: for a checklist to verify against, use OWASP ASVS.`,
    ].join("\n"),
    cwes: [],
    references: ["https://owasp.org/Top10/", "https://owasp.org/www-project-application-security-verification-standard/"],
  },
  {
    id: "a01-broken-access-control",
    title: "A01:2021 Broken Access Control",
    keywords: ["owasp", "a01", "access control", "authorization", "authz", "privilege escalation", "permissions"],
    body: [
      `Access control decides what an authenticated user may do. It is broken when a user can read or change data ` +
        `that is not theirs (changing an id in a URL, an insecure direct object reference), reach admin functions, or ` +
        `act with more privilege than granted. It was the most common category in the 2021 data.`,
      ``,
      `**Prevent it**`,
      `- Deny by default; check authorization on the server for every request, not only in the UI.`,
      `- Enforce ownership in the data query itself (\`WHERE id = $1 AND owner_id = $2\`), not after loading.`,
      `- Put the checks in one shared mechanism (middleware, policy layer) instead of repeating them per route.`,
      `- Disable directory listing; keep metadata and backups out of the web root.`,
      `- Log access-control failures and alert on repeated ones; test authorization with automated tests per role.`,
    ].join("\n"),
    cwes: ["CWE-284", "CWE-285", "CWE-639", "CWE-862", "CWE-863", "CWE-22", "CWE-352"],
    references: [top10("A01_2021-Broken_Access_Control"), "https://cheatsheetseries.owasp.org/cheatsheets/Authorization_Cheat_Sheet.html"],
  },
  {
    id: "a02-cryptographic-failures",
    title: "A02:2021 Cryptographic Failures",
    keywords: ["owasp", "a02", "cryptography", "encryption", "sensitive data exposure", "weak crypto", "hashing"],
    body: [
      `Formerly "Sensitive Data Exposure": data that needs protection (passwords, card numbers, health records, ` +
        `tokens) is sent or stored without adequate cryptography, or with broken algorithms, hard-coded keys or ` +
        `predictable randomness.`,
      ``,
      `**Prevent it**`,
      `- Classify data and do not keep what you do not need.`,
      `- Encrypt in transit with TLS everywhere, and at rest for sensitive stores.`,
      `- Use current, vetted algorithms through a well-maintained library (AES-GCM, ChaCha20-Poly1305); never write ` + `your own.`,
      `- Keep keys out of source code, in a key management service, and rotate them.`,
      `- Use a cryptographically secure random generator for tokens, keys and IVs.`,
      `- Store passwords with a slow, salted password hash (Argon2id, scrypt, bcrypt), never plain SHA or MD5.`,
    ].join("\n"),
    cwes: ["CWE-327", "CWE-328", "CWE-319", "CWE-321", "CWE-330", "CWE-338", "CWE-916"],
    references: [
      top10("A02_2021-Cryptographic_Failures"),
      "https://cheatsheetseries.owasp.org/cheatsheets/Cryptographic_Storage_Cheat_Sheet.html",
    ],
  },
  {
    id: "a03-injection",
    title: "A03:2021 Injection",
    keywords: ["owasp", "a03", "injection", "injection attacks", "untrusted input", "interpreter"],
    body: [
      `Injection happens when untrusted data reaches an interpreter — a SQL engine, a shell, an LDAP server, a ` +
        `template engine, a browser — as part of a command or query, so the data can change what the command does. ` +
        `Cross-site scripting is included in this category since 2021.`,
      ``,
      `**Prevent it**`,
      `- Keep data and code apart: parameterized queries or prepared statements, an ORM used without raw string ` +
        `building, argument arrays instead of shell strings.`,
      `- Encode output for the context it lands in (HTML body, attribute, JavaScript, URL).`,
      `- Validate input against an allowlist of what is expected (type, length, format).`,
      `- Avoid dynamic evaluation (\`eval\`, dynamic templates) of anything a user can influence.`,
      `- Use static analysis in CI to find string-built queries and commands before they ship.`,
    ].join("\n"),
    cwes: ["CWE-89", "CWE-78", "CWE-79", "CWE-94", "CWE-77", "CWE-90", "CWE-917"],
    references: [top10("A03_2021-Injection"), "https://cheatsheetseries.owasp.org/cheatsheets/SQL_Injection_Prevention_Cheat_Sheet.html"],
  },
  {
    id: "a04-insecure-design",
    title: "A04:2021 Insecure Design",
    keywords: ["owasp", "a04", "insecure design", "design flaw", "secure design", "business logic"],
    body: [
      `Insecure design is a missing or ineffective control that no amount of correct coding would fix: a password ` +
        `reset based on guessable "security questions", a checkout that trusts the price sent by the client, an API ` +
        `with no limit on how often it can be called.`,
      ``,
      `**Prevent it**`,
      `- Threat-model new features and flows: what can go wrong, and what stops it?`,
      `- Write abuse cases next to use cases and turn them into tests.`,
      `- Use secure design patterns and paved-road components (authentication, authorization, file handling) instead ` + `of one-off code.`,
      `- Separate tiers and tenants; limit resource use per user and per service.`,
      `- Review designs for trust boundaries: every value crossing one is checked on the receiving side.`,
    ].join("\n"),
    cwes: ["CWE-657", "CWE-501", "CWE-602", "CWE-799", "CWE-841"],
    references: [top10("A04_2021-Insecure_Design"), "https://cheatsheetseries.owasp.org/cheatsheets/Threat_Modeling_Cheat_Sheet.html"],
  },
  {
    id: "a05-security-misconfiguration",
    title: "A05:2021 Security Misconfiguration",
    keywords: ["owasp", "a05", "misconfiguration", "configuration", "default credentials", "hardening", "debug mode"],
    body: [
      `The software is fine but it is deployed unsafely: default accounts left enabled, debug mode and stack traces ` +
        `in production, unneeded services and ports open, permissive cloud storage, missing security headers, XML ` +
        `parsers that resolve external entities.`,
      ``,
      `**Prevent it**`,
      `- Build every environment from the same automated, hardened configuration (infrastructure as code), differing ` + `only in secrets.`,
      `- Ship minimal images: no sample apps, unused features or package managers you do not need.`,
      `- Turn off debug output and detailed errors in production.`,
      `- Set security headers and secure cookie flags centrally.`,
      `- Review cloud permissions and storage policies regularly, automatically where possible.`,
    ].join("\n"),
    cwes: ["CWE-611", "CWE-1004", "CWE-614", "CWE-942", "CWE-1188", "CWE-209"],
    references: [top10("A05_2021-Security_Misconfiguration")],
  },
  {
    id: "a06-vulnerable-components",
    title: "A06:2021 Vulnerable and Outdated Components",
    keywords: ["owasp", "a06", "vulnerable components", "outdated", "dependencies", "libraries", "cve", "patching"],
    body: [
      `Applications are mostly other people's code. A library, framework or runtime with a known vulnerability (a ` +
        `published CVE) gives attackers a ready-made exploit, and unmaintained components never get the fix.`,
      ``,
      `**Prevent it**`,
      `- Keep an inventory of direct and transitive dependencies (a lockfile, an SBOM).`,
      `- Scan dependencies continuously (software composition analysis) and act on reachable, exploitable issues ` + `first.`,
      `- Remove dependencies you no longer use; prefer maintained, widely used packages.`,
      `- Patch on a schedule, with automated update pull requests and tests that make upgrading cheap.`,
      `- Obtain packages only from official registries, over secure links.`,
    ].join("\n"),
    cwes: ["CWE-1104", "CWE-1395", "CWE-1357"],
    references: [
      top10("A06_2021-Vulnerable_and_Outdated_Components"),
      "https://cheatsheetseries.owasp.org/cheatsheets/Vulnerable_Dependency_Management_Cheat_Sheet.html",
    ],
  },
  {
    id: "a07-authentication-failures",
    title: "A07:2021 Identification and Authentication Failures",
    keywords: ["owasp", "a07", "authentication", "login", "credential stuffing", "brute force", "mfa", "session"],
    body: [
      `Weaknesses in confirming who a user is and keeping them logged in: allowing credential stuffing and brute ` +
        `force, weak or default passwords, weak recovery flows, session ids in URLs, sessions that never expire or ` +
        `survive logout.`,
      ``,
      `**Prevent it**`,
      `- Offer and encourage multi-factor authentication.`,
      `- Check new passwords against lists of breached passwords; do not force arbitrary complexity rules or ` + `periodic rotation.`,
      `- Limit and slow down failed logins per account and per source, and alert on patterns.`,
      `- Give the same response for "unknown user" and "wrong password".`,
      `- Create a new, random session id at login, invalidate it at logout, and expire idle sessions.`,
    ].join("\n"),
    cwes: ["CWE-287", "CWE-307", "CWE-384", "CWE-521", "CWE-613", "CWE-798", "CWE-640"],
    references: [
      top10("A07_2021-Identification_and_Authentication_Failures"),
      "https://cheatsheetseries.owasp.org/cheatsheets/Authentication_Cheat_Sheet.html",
    ],
  },
  {
    id: "a08-integrity-failures",
    title: "A08:2021 Software and Data Integrity Failures",
    keywords: ["owasp", "a08", "integrity", "deserialization", "ci/cd", "pipeline", "signing", "auto-update"],
    body: [
      `Code and data are trusted without checking where they came from: deserializing untrusted objects, plugins or ` +
        `updates downloaded without signature checks, CI/CD pipelines anyone can alter, packages pulled from untrusted ` +
        `sources.`,
      ``,
      `**Prevent it**`,
      `- Verify signatures or checksums of software and updates before using them.`,
      `- Do not deserialize untrusted data with formats that can instantiate arbitrary types; use plain data formats ` +
        `(JSON) with schema validation.`,
      `- Protect the build pipeline: reviewed changes, least-privilege credentials, isolated runners.`,
      `- Pin dependencies with lockfiles and integrity hashes.`,
    ].join("\n"),
    cwes: ["CWE-502", "CWE-494", "CWE-829", "CWE-345", "CWE-915"],
    references: [
      top10("A08_2021-Software_and_Data_Integrity_Failures"),
      "https://cheatsheetseries.owasp.org/cheatsheets/Deserialization_Cheat_Sheet.html",
    ],
  },
  {
    id: "a09-logging-monitoring-failures",
    title: "A09:2021 Security Logging and Monitoring Failures",
    keywords: ["owasp", "a09", "logging", "monitoring", "alerting", "incident response", "audit log"],
    body: [
      `Breaches often go unnoticed for months because the events that would reveal them — failed logins, ` +
        `access-control denials, input validation failures on the server — are not recorded, not monitored, or not ` +
        `acted on.`,
      ``,
      `**Prevent it**`,
      `- Log security-relevant events with who, what, when and from where, in a structured format.`,
      `- Send logs to a central store the application cannot alter; keep them long enough to investigate.`,
      `- Alert on suspicious patterns and make sure someone owns the alert.`,
      `- Encode log entries so user input cannot forge lines, and keep secrets and personal data out.`,
      `- Have an incident response plan, and practice it.`,
    ].join("\n"),
    cwes: ["CWE-778", "CWE-117", "CWE-223", "CWE-532"],
    references: [
      top10("A09_2021-Security_Logging_and_Monitoring_Failures"),
      "https://cheatsheetseries.owasp.org/cheatsheets/Logging_Cheat_Sheet.html",
    ],
  },
  {
    id: "a10-ssrf",
    title: "A10:2021 Server-Side Request Forgery (SSRF)",
    keywords: ["owasp", "a10", "ssrf", "server-side request forgery", "url fetch", "webhook", "metadata service"],
    body: [
      `SSRF is when an application fetches a URL that a user supplied (a webhook, an image import, a link preview) ` +
        `without restricting where it may go. The attacker then uses the server to reach internal services, admin ` +
        `interfaces or the cloud metadata endpoint that hands out credentials.`,
      ``,
      `**Prevent it**`,
      `- Allowlist the schemes, hosts and ports the feature needs; reject everything else.`,
      `- Resolve the host name and refuse private, loopback and link-local addresses — and check again after ` +
        `redirects, or disable redirects.`,
      `- Do not return the raw response to the user.`,
      `- Put outbound fetches behind an egress proxy or network policy that blocks internal ranges.`,
      `- Require session tokens for cloud metadata (for example AWS IMDSv2).`,
    ].join("\n"),
    cwes: ["CWE-918"],
    references: [
      top10("A10_2021-Server-Side_Request_Forgery_%28SSRF%29"),
      "https://cheatsheetseries.owasp.org/cheatsheets/Server_Side_Request_Forgery_Prevention_Cheat_Sheet.html",
    ],
  },
];
