function fetchData() {
  return [1, 2, 3];
}

module.exports = { fetchData };
