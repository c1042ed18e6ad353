#[cfg(test)]
mod tests {
    #[test]
    fn test_size() {}
}
