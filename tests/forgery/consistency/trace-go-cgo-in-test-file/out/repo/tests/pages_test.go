package pages

import "C"
import "testing"

func TestSize(t *testing.T) { t.Fatal("x") }
func TestLastPage(t *testing.T) { t.Fatal("x") }
