// Validates an OpenAPI document against the official JSON Schemas of its
// version, with @seriousme/openapi-schema-validator at the version pinned
// in package-lock.json (installed by `make serve-deps`), and checks that
// every $ref resolves.
//
// Usage: node validate-openapi.mjs FILE
// Prints "valid OpenAPI VERSION" and exits 0, or prints the errors and
// exits 1.
import { Validator } from "@seriousme/openapi-schema-validator";
import { readFileSync } from "node:fs";

const file = process.argv[2];
if (!file) {
  console.error("usage: node validate-openapi.mjs FILE");
  process.exit(2);
}
const validator = new Validator();
const res = await validator.validate(JSON.parse(readFileSync(file, "utf8")));
if (!res.valid) {
  console.error(JSON.stringify(res.errors, null, 2));
  process.exit(1);
}
validator.resolveRefs();
console.log(`valid OpenAPI ${validator.version}`);
