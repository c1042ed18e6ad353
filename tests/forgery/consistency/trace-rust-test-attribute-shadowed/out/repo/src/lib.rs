pub fn page_size() -> usize { 100 }
#[cfg(test)]
mod tests {
    use crate::noop as test;
    #[test]
    fn test_size() { panic!() }
}
#[allow(unused_macros)]
macro_rules! noop { ($($t:tt)*) => {} }
