package main

import "fmt"

// foo doubles x.
func foo(x int) int {
	return x * 2
}

func main() {
	fmt.Println(foo(21))
}
