package shop

// oldPrice is the price before the change.
func oldPrice(n int) int {
	return 4 * n
}
