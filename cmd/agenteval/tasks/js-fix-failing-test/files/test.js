const assert = require("assert");
const { capitalize } = require("./lib");

assert.strictEqual(capitalize("hello"), "Hello");
assert.strictEqual(capitalize("a"), "A");
console.log("ok");
