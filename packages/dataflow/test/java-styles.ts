/**
 * Java programs in the styles of Spring MVC and JAX-RS for the taint tests (java-engine-breadth
 * and java-engine-inputs): a controller or resource around one handler body.
 */
import { dedent, PKG, type Files } from "./java-twins";

/** A Spring @RestController `Api` with `members` (fields, constructor) and one handler `body` taking `@RequestParam String q`. */
export function spring(imports: string, members: string, body: string): Files {
  const src = dedent(`
    package com.example.web;

    import org.springframework.web.bind.annotation.*;
    ${imports}

    @RestController
    public class Api {
    ${members}

      @GetMapping("/api")
      public Object handle(@RequestParam("q") String q) throws Exception {
    ${body}
      }
    }
  `);
  return { [`${PKG}/Api.java`]: src };
}

/** A JAX-RS resource whose GET method takes `@QueryParam("q") String q`. */
export function jaxrs(imports: string, body: string): Files {
  const src = dedent(`
    package com.example.web;

    import javax.ws.rs.*;
    ${imports}

    @Path("/res")
    public class Res {
      @GET
      @Produces("application/json")
      public String get(@QueryParam("q") String q) throws Exception {
    ${body}
      }
    }
  `);
  return { [`${PKG}/Res.java`]: src };
}
