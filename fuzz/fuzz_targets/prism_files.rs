//! A PRISM explicit model as files: the input is the `.tra` text, then (each after a NUL byte)
//! the `.lab`, `.srew` and `.trew` texts; the parts given are written beside each other and read
//! by `kolmo::io::read_model`.
#![no_main]

const NAMES: [&str; 4] = ["m.tra", "m.lab", "m.srew", "m.trew"];

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let dir = kolmo_fuzz::scratch(&NAMES);
    for (name, part) in NAMES.iter().zip(data.splitn(4, |&b| b == 0)) {
        std::fs::write(dir.join(name), part).expect("a scratch file");
    }
    kolmo_fuzz::read_path(&dir.join(NAMES[0]), kolmo::io::Format::Prism);
});
