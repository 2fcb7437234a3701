//! Any bytes as `kolmo`'s command line, one argument per line (a NUL byte separates too): clap's
//! number and list flags and the values kolmo parses itself, through `kolmo_cli::check_args`.
#![no_main]

use std::os::unix::ffi::OsStrExt;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let args = std::iter::once(std::ffi::OsStr::new("kolmo")).chain(
        data.split(|&b| b == b'\n' || b == 0)
            .map(std::ffi::OsStr::from_bytes),
    );
    let _ = kolmo_cli::check_args(args);
});
