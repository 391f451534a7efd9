package main

import (
	"fmt"

	"example.com/shop/auth"
	"example.com/shop/db"
	"example.com/shop/types"
)

func main() {
	db.SaveUser(types.User{ID: "u1", Name: "Ada", Email: "ada@example.com"})
	u, err := auth.Login("u1")
	fmt.Println(u.Name, err)
}
