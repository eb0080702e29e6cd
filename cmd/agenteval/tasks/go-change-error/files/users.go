package users

import "errors"

var names = map[int]string{1: "ann", 2: "bob"}

// Name returns the name of the user with id.
func Name(id int) (string, error) {
	n, ok := names[id]
	if !ok {
		return "", errors.New("not found")
	}
	return n, nil
}
