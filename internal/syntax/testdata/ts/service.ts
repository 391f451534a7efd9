import { Pool, type PoolConfig } from "pg";
import type { Request, Response } from "express";
import * as path from "node:path";
import "./polyfills";
import config = require("./config");

export interface Repository<T> {
  find(id: string): Promise<T | undefined>;
  save(item: T): Promise<void>;
  readonly name: string;
}

export type UserId = string & { readonly brand: unique symbol };

export enum Role {
  Admin = "admin",
  Member = "member",
}

const enum Flags {
  None = 0,
  Dirty = 1 << 0,
}

export abstract class BaseStore<T> implements Repository<T> {
  #cache = new Map<string, T>();
  static instances = 0;

  constructor(protected readonly pool: Pool) {
    BaseStore.instances++;
  }

  abstract find(id: string): Promise<T | undefined>;

  async save(item: T): Promise<void> {
    await this.pool.query("INSERT INTO items VALUES ($1)", [item]);
  }

  get name(): string {
    return this.constructor.name;
  }

  set label(value: string) {
    this.#cache.clear();
  }

  static create(config: PoolConfig): Pool {
    return new Pool(config);
  }

  #evict(key: string): void {
    this.#cache.delete(key);
  }

  private onError = (err: Error): void => {
    console.error(err);
  };
}

export class UserStore extends BaseStore<User> {
  async find(id: string): Promise<User | undefined> {
    const result = await this.pool.query<User>("SELECT * FROM users WHERE id = $1", [id]);
    return result.rows[0];
  }
}

export const handler = async (req: Request, res: Response): Promise<void> => {
  const store = new UserStore(new Pool());
  const user = await store.find(req.params.id);
  res.json(user);
};

const format = function named(value: unknown): string {
  return JSON.stringify(value);
};

let counter = 0;
export const MAX_RETRIES = 3;

export function retry<T>(
  fn: () => Promise<T>,
  attempts = MAX_RETRIES,
): Promise<T> {
  return fn().catch((err) => (attempts > 0 ? retry(fn, attempts - 1) : Promise.reject(err)));
}

function* ids(): Generator<number> {
  yield counter++;
}

export declare function overload(a: string): string;

interface User {
  id: UserId;
  role: Role;
}

export default function () {
  return path.join("a", "b");
}

export { format as formatValue, counter };
export { Pool as DbPool } from "pg";
export * from "./models";
export * as helpers from "./helpers";
