fn main() {
    // TODO: handle errors
    let x = 1; // FIXME
}
