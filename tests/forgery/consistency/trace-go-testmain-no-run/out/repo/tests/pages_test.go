package pages

import (
	"os"
	"testing"
)

func TestMain(m *testing.M) { os.Exit(0) }
func TestSize(t *testing.T) { t.Fatal("x") }
func TestLastPage(t *testing.T) { t.Fatal("x") }
