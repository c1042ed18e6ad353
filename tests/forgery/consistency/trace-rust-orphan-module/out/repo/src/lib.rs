pub fn page_size() -> usize { 100 }
