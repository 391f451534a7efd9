import { ordersFor } from "./db";

export function totalSpent(userId: string): number {
  return ordersFor(userId).reduce((sum, o) => sum + o.total, 0);
}

export function orderCount(userId: string): number {
  // A bug that was here before Anvil: arrays have no .size.
  return ordersFor(userId).size;
}
