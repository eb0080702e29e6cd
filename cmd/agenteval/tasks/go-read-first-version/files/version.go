package main

func version() string {
	return "1.1.9"
}
