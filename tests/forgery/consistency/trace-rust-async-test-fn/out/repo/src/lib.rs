pub fn page_size() -> usize { 100 }
#[cfg(test)]
mod tests {
    #[test]
    async fn test_size() { panic!() }
}