import { oldGreeting } from "./legacy";
import { greeting } from "./greeting";

console.log(greeting());
console.log(oldGreeting());
