import { describe, unitCircle } from "./render.js";

console.log(describe(unitCircle()));
