"use strict";
const express = require("express");
import { readFile } from "fs/promises";
import defaultExport, * as utils from "./utils.js";

const app = express();
const PORT = process.env.PORT || 3000;

export const handler = async (req, res) => {
  const data = await readFile("./data.json", "utf8");
  res.send(JSON.parse(data));
};

const f = function named(a, b) {
  return a + b;
};

function* counter() {
  let i = 0;
  while (true) yield i++;
}

class Router {
  #routes = [];
  static instance = null;

  static get default() {
    return Router.instance ?? (Router.instance = new Router());
  }

  add(path, fn) {
    this.#routes.push({ path, fn });
  }

  #match(path) {
    return this.#routes.find((r) => r.path === path);
  }

  set prefix(value) {
    this._prefix = value;
  }
}

function App() {
  return <div className="app">{utils.render()}</div>;
}

app.get("/", handler);
app.listen(PORT, () => console.log(`listening on ${PORT}`));

export default function () {}
export { f as add, Router };
export * from "./routes.js";
module.exports = { App };
