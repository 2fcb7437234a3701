//! (to be written)

use super::{Model, ReadOptions};
use crate::{Error, Result};
use std::io::Write;
use std::path::Path;

/// Reads a model from `text`, the contents of `path`; returns it with notes for the user.
pub(crate) fn read(path: &Path, text: &str, options: &ReadOptions) -> Result<(Model, Vec<String>)> {
    let _ = (path, text, options);
    Err(Error::arg("format", "mtx is not supported yet"))
}

/// Writes `model`.
pub(crate) fn write(model: &Model, w: &mut dyn Write) -> Result<()> {
    let _ = (model, w);
    Err(Error::arg("format", "mtx is not supported yet"))
}
