//! An MDP as a pair of `.npy` files. The input: a flags byte (bit 0: QuantEcon's `Q.npy` rather
//! than MDPToolbox's `P.npy`; bit 1: name the directory rather than the transition file; bit 2:
//! no `R.npy`), the transition array's length as two bytes (little-endian), that array's bytes,
//! then `R.npy`'s bytes.
#![no_main]

const NAMES: [&str; 3] = ["P.npy", "Q.npy", "R.npy"];

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Some((&[flags, lo, hi], rest)) = data.split_first_chunk::<3>() else {
        return;
    };
    let len = usize::from(u16::from_le_bytes([lo, hi])).min(rest.len());
    let (trans, rewards) = rest.split_at(len);
    let dir = kolmo_fuzz::scratch(&NAMES);
    let trans_name = if flags & 1 == 0 { NAMES[0] } else { NAMES[1] };
    std::fs::write(dir.join(trans_name), trans).expect("a scratch file");
    if flags & 4 == 0 {
        std::fs::write(dir.join(NAMES[2]), rewards).expect("a scratch file");
    }
    let path = if flags & 2 == 0 {
        dir.join(trans_name)
    } else {
        dir.to_path_buf()
    };
    kolmo_fuzz::read_path(&path, kolmo::io::Format::Arrays);
});
