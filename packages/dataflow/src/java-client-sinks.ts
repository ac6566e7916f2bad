/**
 * Java sinks added for issue 20: outbound HTTP clients that take the URL as a string or URI
 * (SSRF) and loggers (log injection), and the `sink` helper the Java table builds its rules with.
 */
import { sinkMaker, type SinkRule } from "./spec";

export const sink = sinkMaker("java-taint-");

export const JAVA_CLIENT_AND_LOG_SINKS: readonly SinkRule[] = [
  // HTTP clients that take the URL as a string or URI: Spring's RestTemplate, URI.create, Apache HttpClient requests.
  sink(
    "ssrf-client",
    "CWE-918",
    "Server-side request forgery",
    {
      names: [
        "getForObject",
        "getForEntity",
        "postForObject",
        "postForEntity",
        "postForLocation",
        "exchange",
        "put",
        "patchForObject",
        "headForHeaders",
      ],
      receiver: /^(Test)?RestTemplate$|restTemplate$/,
    },
    {
      message: "Untrusted data decides which URL the server requests.",
      remediation: "Allow only known hosts and schemes; resolve and reject internal addresses.",
      args: [0],
      severity: "MEDIUM",
    },
  ),
  sink(
    "ssrf-request",
    "CWE-918",
    "Server-side request forgery",
    { names: ["HttpGet", "HttpPost", "HttpPut", "HttpDelete", "HttpHead", "HttpPatch"], isNew: true },
    {
      message: "Untrusted data decides which URL the server requests.",
      remediation: "Allow only known hosts and schemes; resolve and reject internal addresses.",
      args: [0],
      severity: "MEDIUM",
    },
  ),
  sink(
    "ssrf-uri",
    "CWE-918",
    "Server-side request forgery",
    { names: ["create"], path: /^URI\.create$/ },
    {
      message: "Untrusted data decides which URL the server requests.",
      remediation: "Allow only known hosts and schemes; resolve and reject internal addresses.",
      args: [0],
      severity: "MEDIUM",
    },
  ),
  // A line break in a logged value forges log entries (CRLF_INJECTION_LOGS); SLF4J `{}` arguments are inserted as-is.
  sink(
    "log",
    "CWE-117",
    "Log injection",
    {
      names: ["info", "warn", "warning", "error", "debug", "trace", "fatal", "severe", "fine", "finer", "finest", "log"],
      receiver: /^(log|logger|LOG|LOGGER|Log|Logger)$|Logger$/,
    },
    {
      message: "Untrusted data is written to a log without its line breaks removed, so it can forge log entries.",
      remediation: 'Replace CR and LF in logged values (value.replaceAll("[\\r\\n]", "_")), or log through an encoder that escapes them.',
      args: "all",
      severity: "LOW",
      confidence: "MEDIUM",
    },
  ),
];
