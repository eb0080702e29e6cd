package shop

// Price returns the price of n items at 3 each.
func Price(n int) int {
	return 3 * n
}
