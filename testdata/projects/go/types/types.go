// Package types holds the shop's data types.
package types

// User is a customer.
type User struct {
	ID    string
	Name  string
	Email string
}

// Order is a purchase by a user.
type Order struct {
	ID     string
	UserID string
	Total  int
}
