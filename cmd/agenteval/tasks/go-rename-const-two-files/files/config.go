package client

// MaxRetries is how many times a request is tried.
const MaxRetries = 3
