package pages

import "testing"

func TestPageSize(t *testing.T) {}
