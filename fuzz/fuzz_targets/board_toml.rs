//! Any bytes as a board file (TOML): parsed by `BoardSpec::from_toml`, then validated by
//! `Board::new`, as `kolmo snakes BOARD` does.
#![no_main]

use kolmo::games::snakes::{Board, BoardSpec};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    // The board reader takes text; kolmo refuses other bytes before it (BoardSpec::from_file).
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(spec) = BoardSpec::from_toml(text, None) {
        let _ = Board::new(&spec);
    }
});
