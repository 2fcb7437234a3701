//! Any bytes as the input of `kolmo judge lightoj-1151`, answered as the command does (exact fractions
//! too when the input's length is odd), the output discarded.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let exact = data.len() % 2 == 1;
    let _ = kolmo_cli::judge_answer(
        "lightoj-1151",
        "<input>",
        data.to_vec(),
        exact,
        &mut std::io::sink(),
    );
});
