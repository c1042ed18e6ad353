package pages

import "testing"

func TestSize(t *testing.T) { t.Skip("later") }
func TestLastPage(t *testing.T) { t.SkipNow() }
