package sum

// Sum adds up xs.
func Sum(xs []int) int {
	total := 0
	for i := 0; i < len(xs)-1; i++ {
		total += xs[i]
	}
	return total
}
