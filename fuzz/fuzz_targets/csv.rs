//! Any bytes as a model in format Csv, read through `kolmo::io::read_model_from`: an error or a
//! model, never a panic.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    kolmo_fuzz::read_bytes(data, kolmo::io::Format::Csv);
});
