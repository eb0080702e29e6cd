const { fetchData } = require("./api");

console.log(fetchData().length);
