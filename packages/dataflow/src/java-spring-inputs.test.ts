/**
 * Spring inputs and HTTP clients. Spring passes the raw request body to a plain `InputStream`/`Reader` parameter of a request
 * mapping: that parameter is a source. The same parameter of a method that is not a mapping is not.
 */
import { describe, expect, it } from "@jest/globals";
import { dedent, places, scan } from "../test/java-twins";

const FILE = "src/main/java/com/example/web/ImportController.java";

const controller = (annotation: string) =>
  dedent(`
    package com.example.web;

    import java.io.InputStream;
    import java.io.ObjectInputStream;
    import org.springframework.web.bind.annotation.PostMapping;
    import org.springframework.web.bind.annotation.RestController;

    @RestController
    public class ImportController {
        ${annotation}
        public String restore(InputStream body) throws Exception {
            Object state = new ObjectInputStream(body).readObject();
            return String.valueOf(state);
        }
    }
  `);

describe("Spring request body bound to a plain InputStream parameter", () => {
  it("is a source in a request mapping", () => {
    const traces = scan({ [FILE]: controller(`@PostMapping("/import")`) });
    const deserialization = places(traces).filter((p) => p.cwe === "CWE-502");
    expect(deserialization.map((p) => p.line)).toEqual([12]);
  });

  it("is not a source in a method that no route reaches", () => {
    expect(places(scan({ [FILE]: controller("") }))).toEqual([]);
  });
});

const client = (call: string) =>
  dedent(`
    package com.example.web;

    import java.net.URI;
    import org.apache.http.client.methods.HttpGet;
    import org.springframework.web.bind.annotation.GetMapping;
    import org.springframework.web.bind.annotation.RequestParam;
    import org.springframework.web.bind.annotation.RestController;
    import org.springframework.web.client.RestTemplate;

    @RestController
    public class ProxyController {
        private final RestTemplate rest = new RestTemplate();

        @GetMapping("/proxy")
        public int proxy(@RequestParam String url) throws Exception {
            ${call}
            return 0;
        }
    }
  `);

describe("HTTP clients given a URL from the request (SSRF)", () => {
  const PROXY = "src/main/java/com/example/web/ProxyController.java";
  const ssrf = (call: string) => places(scan({ [PROXY]: client(call) })).filter((p) => p.cwe === "CWE-918");

  it.each([
    ["RestTemplate", "rest.getForObject(url, String.class);", "java-taint-ssrf-client"],
    ["Apache HttpGet", "HttpGet get = new HttpGet(url);", "java-taint-ssrf-request"],
    ["URI.create", "URI target = URI.create(url);", "java-taint-ssrf-uri"],
  ])("%s with the request's URL is reported", (_name, call, rule) => {
    expect(ssrf(call).map((p) => [p.rule, p.line])).toEqual([[rule, 16]]);
  });

  it.each([
    ["RestTemplate", `rest.getForObject("https://api.example.org/status", String.class);`],
    ["Apache HttpGet", `HttpGet get = new HttpGet("https://api.example.org/status");`],
    ["URI.create", `URI target = URI.create("https://api.example.org/status");`],
  ])("%s with a fixed host is not", (_name, call) => {
    expect(ssrf(call)).toEqual([]);
  });
});
