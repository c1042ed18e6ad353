package pages
func TestSize() {}
func TestLastPage() {}
