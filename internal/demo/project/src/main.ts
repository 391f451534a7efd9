import { displayName, login } from "./auth";
import { saveUser } from "./db";
import { totalSpent } from "./orders";

saveUser({ id: "u1", name: "Ada", email: "ada@example.com" });
const user = login("u1");
console.log(displayName(user), totalSpent(user.id));
