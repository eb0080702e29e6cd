package text

import "strings"

// Shout returns s in capitals with an exclamation mark.
func Shout(s string) string {
	return strings.ToUpper(s) + "!"
}
