//! (to be written)

use super::{Model, ReadOptions};
use crate::{Error, Result};
use std::path::{Path, PathBuf};

/// Reads the `.tra` file `path` and the `.lab`, `.srew`, `.trew` files of the same stem beside it;
/// returns the model, every file read, and notes for the user.
pub(crate) fn read(path: &Path, options: &ReadOptions) -> Result<(Model, Vec<PathBuf>, Vec<String>)> {
    let _ = (path, options);
    Err(Error::arg("format", "prism is not supported yet"))
}

/// Writes `path` (`.tra`) and the `.lab`, `.srew`, `.trew` files the model needs; returns them.
pub(crate) fn write(model: &Model, path: &Path) -> Result<Vec<PathBuf>> {
    let _ = (model, path);
    Err(Error::arg("format", "prism is not supported yet"))
}
