// tsc does not copy declaration files: put the generated schema next to the compiled client,
// so the published types (dist/src/index.d.ts imports ./schema.js) resolve.
import { copyFileSync, mkdirSync } from "node:fs";

mkdirSync("dist/src", { recursive: true });
copyFileSync("src/schema.d.ts", "dist/src/schema.d.ts");
