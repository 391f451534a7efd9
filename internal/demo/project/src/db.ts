import { Order, User } from "./types";

const users = new Map<string, User>();
const orders: Order[] = [];

export function saveUser(user: User): void {
  users.set(user.id, user);
}

export function findUser(id: string): User | undefined {
  return users.get(id);
}

export function allUsers(): User[] {
  return [...users.values()];
}

export function ordersFor(userId: string): Order[] {
  return orders.filter((o) => o.userId === userId);
}

export function userCount(): number {
  // A bug that was here before Anvil: arrays have no .size.
  return allUsers().size;
}
