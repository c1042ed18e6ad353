package export

import "testing"

func TestResume(t *testing.T) {}
