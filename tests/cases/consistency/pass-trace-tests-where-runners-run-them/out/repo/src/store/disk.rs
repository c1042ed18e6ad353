#[cfg(test)]
#[path = "disk/checks.rs"]
mod checks;
