fn main() { divan::main() }
