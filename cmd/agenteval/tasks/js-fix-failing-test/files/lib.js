function capitalize(s) {
  return s.charAt(1).toUpperCase() + s.slice(1);
}

module.exports = { capitalize };
