pub fn page_size() -> usize { 100 }
#[cfg(test)]
mod tests {
    #[test]
    #[should_panic]
    fn test_size() { panic!() }
}
