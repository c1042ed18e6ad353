//go:build ignore

package pages
import "testing"
func TestSize(t *testing.T) {}
func TestLastPage(t *testing.T) {}
