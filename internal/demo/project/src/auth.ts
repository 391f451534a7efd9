import { findUser } from "./db";
import { User } from "./types";

export function login(id: string): User {
  const user = findUser(id);
  if (!user) {
    throw new Error(`no user ${id}`);
  }
  return user;
}

export function displayName(user: User): string {
  return `${user.name} <${user.email}>`;
}
