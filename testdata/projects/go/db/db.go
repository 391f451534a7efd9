// Package db stores users and orders in memory.
package db

import "example.com/shop/types"

var users = map[string]types.User{}

// SaveUser stores u.
func SaveUser(u types.User) { users[u.ID] = u }

// FindUser returns the user with the given id.
func FindUser(id string) (types.User, bool) {
	u, ok := users[id]
	return u, ok
}
