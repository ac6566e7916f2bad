import { z } from "zod";

/**
 * A JSON request body object that refuses unknown fields, naming them (never their values),
 * and says plainly when the body is not an object at all.
 */
export function bodyObject<T extends z.core.$ZodLooseShape>(shape: T) {
  return z.strictObject(shape, {
    error: (iss) => (iss.code === "unrecognized_keys" ? `Unknown field: ${iss.keys.join(", ")}.` : "Body must be a JSON object."),
  });
}
