package main

import "fmt"

func main() {
	fmt.Println(strings.ToUpper("go"))
}
