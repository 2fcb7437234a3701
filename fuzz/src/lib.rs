//! What the fuzz targets share: reading a model from bytes with every option, and a scratch
//! directory for the readers that take files (PRISM's companion files, `.npy` pairs).

use kolmo::io::{Format, ReadOptions, read_model, read_model_from, write_model_to};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The reader's option sets every input is read with: as by default, and normalising rows while
/// keeping the values as written (`--normalize --exact`), whose paths differ.
const OPTIONS: [(bool, bool); 2] = [(false, false), (true, true)];

fn options(format: Format, (normalize, exact): (bool, bool)) -> ReadOptions {
    ReadOptions {
        format: Some(format),
        normalize,
        exact,
    }
}

/// Reads `data` as a model in `format` through [`read_model_from`] with each option set; a model
/// read is written back in the same format and read again (the writers and a second read must
/// not panic either). Errors are the expected outcome for most inputs and are ignored.
pub fn read_bytes(data: &[u8], format: Format) {
    for o in OPTIONS {
        if let Ok(file) = read_model_from(data, format, &options(format, o)) {
            round_trip(&file.model, format);
        }
    }
}

/// Reads the model file `path` (a `.tra` with companions, a `.npy` file or directory) with each
/// option set, as [`read_bytes`] does.
pub fn read_path(path: &Path, format: Format) {
    for o in OPTIONS {
        if let Ok(file) = read_model(path, &options(format, o)) {
            round_trip(&file.model, format);
        }
    }
}

fn round_trip(model: &kolmo::io::Model, format: Format) {
    let mut out = Vec::new();
    if write_model_to(model, &mut out, format).is_ok() {
        let _ = read_model_from(&out[..], format, &options(format, OPTIONS[0]));
    }
}

/// A directory of this process's own (under /dev/shm when it exists: a file system in memory),
/// emptied of the files `names` before each use.
pub fn scratch(names: &[&str]) -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    let dir = DIR.get_or_init(|| {
        let base = Path::new("/dev/shm");
        let base = if base.is_dir() {
            base.to_path_buf()
        } else {
            std::env::temp_dir()
        };
        let dir = base.join(format!("kolmo-fuzz-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a scratch directory");
        dir
    });
    for name in names {
        let _ = std::fs::remove_file(dir.join(name));
    }
    dir
}
