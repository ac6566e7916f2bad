/**
 * Spring passes the raw request body to a plain `InputStream`/`Reader` parameter of a request
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
