package user

// User is a person with an account.
type User struct {
	Name string
	Age  int
}
