package client

// Tries returns the number of calls a request makes at most.
func Tries() int {
	return MaxRetries + 1
}
