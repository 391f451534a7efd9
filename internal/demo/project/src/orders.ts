import { ordersFor } from "./db";

export function totalSpent(userId: string): number {
  return ordersFor(userId).reduce((sum, o) => sum + o.total, 0);
}
