fn main() {
    // FΙXME: handle the error (Greek capital Iota)
    // FІXME: and this one (Cyrillic capital Byelorussian-Ukrainian I)
}
