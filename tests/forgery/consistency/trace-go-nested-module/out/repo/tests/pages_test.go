package pages

import "testing"

func TestSize(t *testing.T) { t.Fatal("x") }
func TestLastPage(t *testing.T) { t.Fatal("x") }
