import { Circle, type Shape } from "./shapes.js";
import { round } from "#lib/round.js";

export function describe(s: Shape): string {
  return `area ${round(s.area())}`;
}

export function unitCircle(): Circle {
  return new Circle(1);
}
