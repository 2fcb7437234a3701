//! Big text files read in windows, each window cut into chunks that are parsed in parallel: one
//! driver, [`read_chunked`], for every line format ([`LineFormat`]: the DRN body, PRISM's `.tra`,
//! and what comes later), reading from any `impl Read` ([`Stream`]).
//!
//! A window (4 MiB, [`Tuning`]) is cut into chunks of about 256 KiB at lines where the format lets a
//! chunk start without knowing what came before ([`LineFormat::cut_at`]), so that each chunk holds
//! whole states. Each chunk is checked to be UTF-8 and parsed on its own thread into reused buffers
//! (rows checked as they close and stored in CSR form, [`ChunkRows`]), its lines counted from its
//! first, while the next window is read. Lines of the common forms take fast paths over the bytes
//! ([`NumberCache`] remembers the number tokens parsed lately), the others a general path that
//! gives the format's messages. The format takes the chunks in file order ([`LineFormat::take`];
//! [`ChunkError`] turns chunk lines into file lines) and the driver appends their rows to the model
//! ([`Rows`]). Memory: two windows, the chunks' buffers and the model. Newlines are found and
//! counted with `memchr`.
//!
//! Errors are those of reading the file front to back: a malformed line stops its chunk and the
//! first in file order is reported; the faults found as rows and states close (transitions out of
//! range, duplicates, refused rows) are kept per chunk, first of each kind ([`Faults`]), and come
//! after the counts the formats check at the end. An invalid UTF-8 byte anywhere wins over every
//! parse error ([`Stream::utf8_error_in_rest`]) and is reported at its line and column.

use super::parse_error;
use super::rows::{
    RowFault, SumFault, Written, append_row, check_row, choice_gap_message, duplicate_message, entry_fault,
    normalized_note, sum_message,
};
use crate::sparse::{CsrMatrix, CsrParts, RowBlock};
use crate::{Error, Result, StateId};
use rayon::prelude::*;
use std::io::Read;
use std::path::Path;

/// Sizes of the windows and chunks. Tests make them tiny, so that small files take every path that
/// big ones do.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Tuning {
    /// Bytes read at a time (a window grows when one state alone is longer).
    pub window: usize,
    /// Bytes per chunk, roughly (a chunk ends at the first allowed cut after this many bytes).
    pub chunk: usize,
    /// Bytes of the first chunk of the body: parsed on its own when it decides something the other
    /// chunks need (the number of rewards in brackets, in a DRN file without `@reward_models`).
    pub first_chunk: usize,
}

impl Tuning {
    /// The sizes used for files: 4 MiB windows, 256 KiB chunks (16 per window, enough for rayon
    /// to balance them over the cores), a 64 KiB first chunk. Small windows keep the buffers (two
    /// windows and the chunks' rows) small: fewer fresh pages to map, and they stay in the caches.
    pub const FILES: Tuning = Tuning {
        window: 4 << 20,
        chunk: 256 << 10,
        first_chunk: 64 << 10,
    };
}

/// A window onto a file read front to back.
pub(crate) struct Stream<R> {
    reader: R,
    buf: Vec<u8>,
    begin: usize,
    end: usize,
    /// Whether [`data`](Self::data) runs to the end of the file.
    eof: bool,
    /// Newlines in the file before `buf[begin]`: the data's first line is line `lines_before + 1`.
    lines_before: usize,
    /// Bytes of the file before `buf[begin]`.
    offset: u64,
    /// Whether the last byte read so far is a newline (or nothing was read).
    ends_with_newline: bool,
    window: usize,
    /// The file's length, if known (windows are not made longer than the file).
    size: Option<u64>,
    /// The buffer the next window is read into while the current one is parsed.
    spare: Vec<u8>,
}

impl<R: Read + Send> Stream<R> {
    /// A stream over `reader` (of `size` bytes, if known) reading `window` bytes at a time;
    /// nothing is read yet.
    pub fn new(reader: R, window: usize, size: Option<u64>) -> Self {
        Self {
            reader,
            buf: Vec::new(),
            begin: 0,
            end: 0,
            eof: false,
            lines_before: 0,
            offset: 0,
            ends_with_newline: true,
            window: window.max(1),
            size,
            spare: Vec::new(),
        }
    }

    /// The bytes read and not yet consumed.
    pub fn data(&self) -> &[u8] {
        &self.buf[self.begin..self.end]
    }

    /// The number of lines of the whole file, as `str::lines` counts them (a last line without a
    /// newline counts). Meaningful once everything has been consumed at the end of the file.
    pub fn total_lines(&self) -> usize {
        self.lines_before + usize::from(!self.ends_with_newline)
    }

    /// Drops the first `bytes` of [`data`](Self::data), which hold `newlines` newlines.
    pub fn consume(&mut self, bytes: usize, newlines: usize) {
        debug_assert!(bytes <= self.end - self.begin);
        self.begin += bytes;
        self.offset += bytes as u64;
        self.lines_before += newlines;
    }

    /// Reads on: keeps [`data`](Self::data) and appends at least a window's worth of the file (at
    /// least doubling the data, so that a window without a place to cut grows geometrically), or
    /// the rest of the file.
    ///
    /// # Errors
    /// [`Error::Io`] naming `path` if reading fails.
    pub fn read_more(&mut self, path: &Path) -> Result<()> {
        if !self.eof {
            self.read_ahead_while(path, 0, |_| ((), 0))?;
        }
        Ok(())
    }

    /// Runs `work` on [`data`](Self::data) while, on another thread, the bytes from `from` on and
    /// the next window of the file are read into a second buffer, which then becomes the data;
    /// `work` returns its result and the newlines of the bytes before `from`.
    ///
    /// # Errors
    /// [`Error::Io`] naming `path` if reading fails (after `work` is done).
    pub fn read_ahead_while<T: Send>(
        &mut self,
        path: &Path,
        from: usize,
        work: impl FnOnce(&[u8]) -> (T, usize) + Send,
    ) -> Result<T> {
        // A window's worth (at least the bytes kept), but no more than the file holds after the
        // data (plus one, to see its end without another read).
        let (len, keep) = (self.end - self.begin, self.end - self.begin - from);
        let mut more = if self.eof { 0 } else { self.window.max(keep) };
        if let Some(total) = self.size {
            let left = total.saturating_sub(self.offset + len as u64);
            more = more.min(usize::try_from(left).unwrap_or(usize::MAX).saturating_add(1));
        }
        let Stream {
            reader,
            buf,
            spare,
            begin,
            end,
            eof,
            ends_with_newline,
            ..
        } = self;
        let data = &buf[*begin..*end];
        let fill = || fill(reader, (eof, ends_with_newline), spare, &data[from..], more);
        let ((result, newlines), read) = rayon::join(|| work(data), fill);
        self.end = read.map_err(super::io_error(path))?;
        std::mem::swap(&mut self.buf, &mut self.spare);
        self.offset += from as u64;
        self.lines_before += newlines;
        self.begin = 0;
        Ok(result)
    }

    /// The first byte from here to the end of the file that is not UTF-8, as the error reading the
    /// file as text reports it (line and column); `None` if the rest is UTF-8. Consumes the rest.
    ///
    /// # Errors
    /// [`Error::Io`] if reading fails.
    pub fn utf8_error_in_rest(&mut self, path: &Path) -> Result<Option<Error>> {
        loop {
            let data = self.data();
            let (valid, complete) = match std::str::from_utf8(data) {
                Ok(_) => (data.len(), true),
                // A sequence cut by the window's end may go on in the next window.
                Err(e) if e.error_len().is_none() && !self.eof => (e.valid_up_to(), true),
                Err(e) => (e.valid_up_to(), false),
            };
            if !complete {
                return Ok(Some(utf8_error(path, self.lines_before, data, valid)));
            }
            if self.eof && valid == data.len() {
                let newlines = count_newlines(data);
                self.consume(data.len(), newlines);
                return Ok(None);
            }
            // Keep the line holding the cut, so that a column can still be counted from its start.
            let upto = memchr::memrchr(b'\n', &data[..valid]).map_or(0, |i| i + 1);
            let newlines = count_newlines(&data[..upto]);
            self.consume(upto, newlines);
            self.read_more(path)?;
        }
    }
}

/// Puts `head` at the start of `buf`, then reads up to `more` bytes of `reader` behind it, noting
/// the end of the input and whether the last byte read is a newline; returns the bytes `buf` holds.
fn fill<R: Read>(
    reader: &mut R,
    (eof, ends_with_newline): (&mut bool, &mut bool),
    buf: &mut Vec<u8>,
    head: &[u8],
    more: usize,
) -> std::io::Result<usize> {
    let size = head.len() + more;
    if buf.len() < size {
        // A fresh zeroed allocation (the system hands out zeroed pages) rather than zeroing by hand.
        *buf = vec![0u8; size];
    }
    buf[..head.len()].copy_from_slice(head);
    let mut end = head.len();
    while end < size && !*eof {
        match reader.read(&mut buf[end..size]) {
            Ok(0) => *eof = true,
            Ok(k) => {
                end += k;
                *ends_with_newline = buf[end - 1] == b'\n';
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(end)
}

/// The error for the invalid byte at `at` of `bytes`, whose first line is the file's line
/// `lines_before + 1` and starts at `bytes[0]`.
pub(crate) fn utf8_error(path: &Path, lines_before: usize, bytes: &[u8], at: usize) -> Error {
    let valid = &bytes[..at];
    let line = lines_before + 1 + count_newlines(valid);
    let start = memchr::memrchr(b'\n', valid).map_or(0, |i| i + 1);
    let column = 1 + String::from_utf8_lossy(&valid[start..]).chars().count();
    parse_error(
        path,
        line,
        column,
        "not UTF-8 text (a binary file, or another encoding)",
    )
}

/// A header parse of the text read so far: the header, and the bytes and newlines up to the end
/// of its last line; `None` when the text ran out before the header did.
pub(crate) type HeaderRead<H> = Option<(H, usize, usize)>;

/// Reads a file's header from the start of `stream`, reading on while it is not complete;
/// `parse(path, text, complete)` gets the whole lines read so far (`complete`: the whole file). Leaves
/// `stream` after the header. Errors as if the whole file had been read as text first: a byte
/// that is not UTF-8, or nothing but white space, is what is wrong with it.
pub(crate) fn header_from<R: Read + Send, H>(
    path: &Path,
    stream: &mut Stream<R>,
    parse: impl Fn(&Path, &str, bool) -> Result<HeaderRead<H>>,
) -> Result<H> {
    stream.read_more(path)?;
    loop {
        let data = stream.data();
        // The whole lines of valid UTF-8 read so far (all of them at the end of a valid file).
        let (valid, bad) = match std::str::from_utf8(data) {
            Ok(_) => (data.len(), false),
            Err(e) => (e.valid_up_to(), e.error_len().is_some() || stream.eof),
        };
        let complete = stream.eof && !bad;
        let end = if complete {
            data.len()
        } else {
            memchr::memrchr(b'\n', &data[..valid]).map_or(0, |i| i + 1)
        };
        let text = std::str::from_utf8(&data[..end]).unwrap_or_default();
        match parse(path, text, complete) {
            Ok(Some((header, used, newlines))) => {
                stream.consume(used, newlines);
                return Ok(header);
            }
            Ok(None) => {
                if bad {
                    return Err(utf8_error(path, 0, data, valid));
                }
                stream.read_more(path)?;
            }
            Err(e) => {
                if complete && text.trim().is_empty() {
                    return Err(parse_error(path, 1, 1, "the file is empty"));
                }
                return Err(stream.utf8_error_in_rest(path)?.unwrap_or(e));
            }
        }
    }
}

/// Number of `\n` bytes in `bytes`.
pub(crate) fn count_newlines(bytes: &[u8]) -> usize {
    memchr::memchr_iter(b'\n', bytes).count()
}

/// The start of the first line that starts at or after `at` in `data`, if `data` shows one.
pub(crate) fn line_start_from(data: &[u8], at: usize) -> Option<usize> {
    if at == 0 {
        return Some(0);
    }
    if data.get(at - 1) == Some(&b'\n') {
        return (at < data.len()).then_some(at);
    }
    let nl = memchr::memchr(b'\n', data.get(at..)?)?;
    let start = at + nl + 1;
    (start < data.len()).then_some(start)
}

/// The line of `text` starting at `start`, as `str::lines` and a stripped `\r` give it (a line
/// ended by `\r\n` loses up to two `\r`, the last line without a newline one), and where the next
/// line starts.
#[inline]
pub(crate) fn text_line(text: &str, start: usize) -> (&str, usize) {
    let rest = &text[start..];
    match memchr::memchr(b'\n', rest.as_bytes()) {
        Some(i) => {
            let line = &rest[..i];
            let line = line.strip_suffix('\r').unwrap_or(line);
            (line.strip_suffix('\r').unwrap_or(line), start + i + 1)
        }
        None => (rest.strip_suffix('\r').unwrap_or(rest), text.len()),
    }
}

/// The lines of a text from byte `pos` on, as [`text_line`] cuts them: (number, text), numbered on
/// from `number`; a byte-order mark is dropped from the first line of a whole text.
pub(crate) struct TextLines<'a> {
    text: &'a str,
    /// Where the next line starts.
    pub pos: usize,
    /// The number of the last line given (0 before the first).
    pub number: usize,
    /// The newlines that ended the lines given.
    pub newlines: usize,
    /// Whether the lines ran out.
    pub exhausted: bool,
    strip_bom: bool,
}

impl<'a> TextLines<'a> {
    /// The lines of `text`, a whole text (a byte-order mark at its start is dropped).
    pub fn of(text: &'a str) -> Self {
        Self {
            strip_bom: true,
            ..Self::at(text, 0, 0)
        }
    }

    /// The lines of `text` from byte `pos` (a line start), the first numbered `number + 1`, as
    /// they are.
    pub fn at(text: &'a str, pos: usize, number: usize) -> Self {
        Self {
            text,
            pos,
            number,
            newlines: 0,
            exhausted: false,
            strip_bom: false,
        }
    }

    /// The text after the lines given.
    pub fn rest(&self) -> &'a str {
        self.text.get(self.pos..).unwrap_or_default()
    }
}

impl<'a> Iterator for TextLines<'a> {
    type Item = (usize, &'a str);

    fn next(&mut self) -> Option<(usize, &'a str)> {
        if self.pos >= self.text.len() {
            self.exhausted = true;
            return None;
        }
        let (mut line, next) = text_line(self.text, self.pos);
        if std::mem::take(&mut self.strip_bom) {
            line = line.strip_prefix('\u{feff}').unwrap_or(line);
        }
        self.number += 1;
        self.newlines += usize::from(self.text.as_bytes()[next - 1] == b'\n');
        self.pos = next;
        Some((self.number, line))
    }
}

/// Cut points in `data` for chunks of about `chunk` bytes (`first` bytes for the first): 0, then
/// for each target size the first place at or after it where `cut_at` allows a cut (it returns a
/// line start below `data.len()`, or `None` when `data` shows none). At the end of the file
/// `data.len()` closes the last chunk; before it, the bytes after the last cut wait for the next
/// window, and `[0]` means that no chunk can be closed yet (the window must grow).
pub(crate) fn plan_cuts(
    data: &[u8],
    eof: bool,
    first: usize,
    chunk: usize,
    cut_at: impl Fn(&[u8], usize) -> Option<usize>,
) -> Vec<usize> {
    let mut cuts = vec![0];
    let mut last = 0usize;
    let mut size = first.max(1);
    loop {
        let target = last.saturating_add(size);
        if target >= data.len() {
            break;
        }
        match cut_at(data, target) {
            Some(c) if c > last && c < data.len() => {
                cuts.push(c);
                last = c;
            }
            _ => break,
        }
        size = chunk.max(1);
    }
    if eof && last < data.len() {
        cuts.push(data.len());
    }
    cuts
}

/// Turns chunk-local line numbers (from 1) into the file's.
pub(crate) type LineMap<'a> = &'a dyn Fn(usize) -> usize;

/// An error message that may name other lines of its chunk, so it is written once the chunk's place
/// in the file is known.
pub(crate) type Message = Box<dyn FnOnce(LineMap) -> String + Send + Sync>;

/// What parsing part of a chunk (or of a small file) comes to: errors in its own line numbers.
pub(crate) type ChunkResult<T> = std::result::Result<T, ChunkError>;

/// Where a chunk's error is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Place {
    /// A line of the chunk, from 1.
    Line(usize),
    /// The file's last line.
    LastLine,
}

/// A parse error found in a chunk, placed in the chunk's own line numbers.
pub(crate) struct ChunkError {
    pub place: Place,
    pub column: usize,
    pub message: Message,
}

impl ChunkError {
    /// An error at chunk line `line`, column `column`, with a message that names no other line.
    pub fn at(line: usize, column: usize, message: impl Into<String>) -> Self {
        let message = message.into();
        Self {
            place: Place::Line(line),
            column,
            message: Box::new(move |_| message),
        }
    }

    /// An error at the file's last line, column 1.
    pub fn at_last_line(message: impl Into<String>) -> Self {
        Self {
            place: Place::LastLine,
            ..Self::at(0, 1, message)
        }
    }

    /// An error whose message names other lines of the chunk (given the map to file lines).
    pub fn naming_lines(
        line: usize,
        column: usize,
        message: impl FnOnce(LineMap) -> String + Send + Sync + 'static,
    ) -> Self {
        Self {
            place: Place::Line(line),
            column,
            message: Box::new(message),
        }
    }

    /// The error in the file's terms: the chunk's first line is line `lines_before + 1`, the file has
    /// `last_line` lines.
    pub fn into_error(self, path: &Path, lines_before: usize, last_line: usize) -> Error {
        let map = move |l: usize| lines_before + l;
        let line = match self.place {
            Place::Line(l) => map(l),
            Place::LastLine => last_line,
        };
        parse_error(path, line, self.column, (self.message)(&map))
    }
}

/// `token` in backquotes, shortened if long.
pub(crate) fn quote(token: &str) -> String {
    let mut s: String = token.chars().take(40).collect();
    if s.len() < token.len() {
        s.push_str("...");
    }
    format!("`{s}`")
}

/// The column (from 1) of `part`, a subslice of `line`.
pub(crate) fn column_of(line: &str, part: &str) -> usize {
    let offset = (part.as_ptr() as usize).saturating_sub(line.as_ptr() as usize);
    line.get(..offset).map_or(1, |s| s.chars().count() + 1)
}

/// Skips spaces and tabs from `i`.
#[inline(always)]
pub(crate) fn skip_blanks(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && (b[i] == b' ' || b[i] == b'\t') {
        i += 1;
    }
    i
}

/// A decimal `u32` of at most 10 plain digits starting at `i`: its value and where it ends.
#[inline(always)]
pub(crate) fn digits_u32(b: &[u8], i: usize) -> Option<(u32, usize)> {
    let mut j = i;
    let mut v: u64 = 0;
    while j < b.len() && b[j].is_ascii_digit() {
        if j - i == 10 {
            return None;
        }
        v = v * 10 + u64::from(b[j] - b'0');
        j += 1;
    }
    if j == i {
        return None;
    }
    u32::try_from(v).ok().map(|v| (v, j))
}

/// A plain decimal number token starting at `i` (digits, `.`, `e`, `E`, `+`, `-`), parsed as
/// [`parse_number`](super::parse_number) would; `None` for anything else (a fraction, a placeholder,
/// a malformed or infinite number), which the caller's general path then handles.
#[inline]
pub(crate) fn plain_number(text: &str, i: usize) -> Option<(f64, usize)> {
    let b = text.as_bytes();
    let mut j = i;
    while j < b.len() && number_byte(b[j]) {
        j += 1;
    }
    if j == i {
        return None;
    }
    super::parse_number(text.get(i..j)?).map(|v| (v, j))
}

/// The last few plain number tokens parsed and their values. Model files repeat a few
/// probabilities over and over (1/6 on every row of a die, 0.5 in every coin flip), and comparing a
/// token's bytes with a remembered one costs a fraction of parsing it.
#[derive(Clone, Debug, Default)]
pub(crate) struct NumberCache {
    slots: [Slot; 4],
    /// The slot to fill next.
    next: usize,
}

/// A remembered token: its bytes in three little-endian words (zero past its end), the masks of
/// its bytes, its length (0 for an empty slot) and value.
#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    words: [u64; 3],
    masks: [u64; 3],
    len: usize,
    value: f64,
}

/// Whether `c` may be part of a plain number token.
#[inline(always)]
fn number_byte(c: u8) -> bool {
    matches!(c, b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-')
}

/// The 24 bytes from `i` as three little-endian words, if there are so many.
#[inline(always)]
fn words_at(b: &[u8], i: usize) -> Option<[u64; 3]> {
    let w: &[u8; 24] = b.get(i..i + 24)?.try_into().ok()?;
    let word = |n: usize| {
        let mut bytes = [0u8; 8];
        bytes.copy_from_slice(&w[n * 8..n * 8 + 8]);
        u64::from_le_bytes(bytes)
    };
    Some([word(0), word(1), word(2)])
}

impl NumberCache {
    /// [`plain_number`], remembering tokens of up to 24 bytes: a token that starts with the bytes
    /// of a remembered one and ends where it ends is not parsed again.
    #[inline]
    pub fn plain_number(&mut self, text: &str, i: usize) -> Option<(f64, usize)> {
        let b = text.as_bytes();
        let words = words_at(b, i);
        if let Some(w) = words {
            for slot in &self.slots {
                if slot.len > 0
                    && w[0] & slot.masks[0] == slot.words[0]
                    && w[1] & slot.masks[1] == slot.words[1]
                    && w[2] & slot.masks[2] == slot.words[2]
                    && !number_byte(b[i + slot.len])
                {
                    return Some((slot.value, i + slot.len));
                }
            }
        }
        let (value, j) = plain_number(text, i)?;
        let len = j - i;
        if let Some(w) = words
            && len < 24
        {
            let mut masks = [0u64; 3];
            for (n, mask) in masks.iter_mut().enumerate() {
                let keep = len.saturating_sub(n * 8).min(8);
                *mask = if keep == 8 {
                    u64::MAX
                } else {
                    (1u64 << (keep * 8)) - 1
                };
            }
            self.slots[self.next] = Slot {
                words: [w[0] & masks[0], w[1] & masks[1], w[2] & masks[2]],
                masks,
                len,
                value,
            };
            self.next = (self.next + 1) % self.slots.len();
        }
        Some((value, j))
    }
}

/// Ends a fast-path line at `i`: an optional `\r`, then a newline or the end of the chunk. Returns
/// where the next line starts and whether a newline ended this one.
#[inline]
pub(crate) fn end_of_line(b: &[u8], mut i: usize) -> Option<(usize, bool)> {
    if i < b.len() && b[i] == b'\r' {
        i += 1;
    }
    if i == b.len() {
        return Some((i, false));
    }
    (b[i] == b'\n').then_some((i + 1, true))
}

/// A line format read in chunks by [`read_chunked`]: where a chunk may start, how one is parsed
/// (on any thread, into its own [`Chunk`](Self::Chunk)), and how the parsed chunks join the model
/// (in file order, on the reader's thread).
pub(crate) trait LineFormat: Send + Sync {
    /// One chunk's parse, reused from window to window.
    type Chunk: Default + Send + Sync;

    /// The start of the first line at or after `at` of `data` where a chunk may start without
    /// knowing the lines before it (below `data.len()`), or `None` if `data` shows none.
    fn cut_at(data: &[u8], at: usize) -> Option<usize>;

    /// Parses `text` (whole lines) into `chunk`, replacing what it held. `first`: the chunk starts
    /// the body; `build`: keep what is read (false once the model is known to be refused).
    ///
    /// # Errors
    /// The first malformed line, in the chunk's own line numbers (the chunk stops there).
    fn parse(&self, chunk: &mut Self::Chunk, text: &str, first: bool, build: bool) -> ChunkResult<()>;

    /// Whether a chunk may still learn something that the chunks after it need: then the body's
    /// first chunk is parsed alone, and once a chunk has learnt it ([`learn`](Self::learn)) the
    /// chunks after it for which [`relearn`](Self::relearn) holds are parsed again.
    fn learning(&self) -> bool {
        false
    }

    /// Takes what `chunk` (whose first line is the file's line `lines_before + 1`) learnt;
    /// returns whether it learnt something.
    fn learn(&mut self, _chunk: &Self::Chunk, _lines_before: usize) -> bool {
        false
    }

    /// Whether `chunk`, parsed before the learning, must be parsed again.
    fn relearn(&self, _chunk: &Self::Chunk) -> bool {
        false
    }

    /// Whether the model is known to be refused (only counts matter then).
    fn refused(&self) -> bool;

    /// The rows of `chunk` (checked, in CSR form), which the driver appends to the model.
    fn rows(chunk: &Self::Chunk) -> &ChunkRows;

    /// Whether the rows are grouped by state (an MDP: the rows per state are kept).
    fn grouped(&self) -> bool;

    /// Checks `chunk` against the chunks before it, in file order, with the error that stopped it
    /// (if any), and takes what it holds besides its rows; its first line is the file's line
    /// `lines_before + 1`.
    ///
    /// # Errors
    /// [`Halt`]: stop reading here.
    fn take(
        &mut self,
        chunk: &mut Self::Chunk,
        stop: Option<ChunkError>,
        lines_before: usize,
    ) -> std::result::Result<(), Halt>;
}

/// The rows read: the CSR arrays as they grow and, for grouped rows, the rows of each state.
#[derive(Default)]
pub(crate) struct Rows {
    pub matrix: CsrParts<f64>,
    pub group_ptr: Option<Vec<usize>>,
}

impl Rows {
    /// The matrix of the rows over `n` states (one row per state when they are not grouped).
    pub fn into_matrix(self, n: usize) -> CsrMatrix {
        let (row_ptr, cols, vals) = self.matrix.into_arrays();
        let group_ptr = self
            .group_ptr
            .unwrap_or_else(|| (0..=n).into_par_iter().collect());
        CsrMatrix::from_grouped_parts(n, row_ptr, cols, vals, group_ptr)
    }

    /// Appends the rows of `chunks`, the large arrays on all cores.
    fn append<F: LineFormat>(&mut self, chunks: &[(F::Chunk, Meta)]) {
        let Rows { matrix, group_ptr } = self;
        rayon::join(
            || matrix.append(chunks, |c| &F::rows(&c.0).block),
            || {
                if let Some(group_ptr) = group_ptr {
                    let mut last = group_ptr.last().copied().unwrap_or(0);
                    for (c, _) in chunks {
                        group_ptr.extend(F::rows(c).state_rows.iter().map(|&r| {
                            last += r as usize;
                            last
                        }));
                    }
                }
            },
        );
    }
}

/// Why [`LineFormat::take`] stops the reading.
pub(crate) enum Halt {
    /// A malformed line (reported unless the rest of the file holds a byte that is not UTF-8).
    Stop(Error),
    /// The format cannot be read in chunks (the caller reads the file another way).
    Abandon,
}

/// What the driver knows of a chunk besides the format's parse.
#[derive(Default)]
struct Meta {
    newlines: usize,
    /// Where the chunk is not UTF-8 (the byte offset), if it is not.
    utf8: Option<usize>,
    stop: Option<ChunkError>,
}

/// What one window came to.
enum Window {
    /// All its chunks were read.
    Read,
    /// A malformed line.
    Stopped(Error),
    /// An error to report as it is.
    Failed(Error),
    Abandoned,
}

/// Parses chunk `bytes` with `format`.
fn parse_one<F: LineFormat>(
    format: &F,
    (chunk, meta): &mut (F::Chunk, Meta),
    bytes: &[u8],
    first: bool,
    build: bool,
) {
    meta.newlines = count_newlines(bytes);
    meta.utf8 = None;
    meta.stop = match std::str::from_utf8(bytes) {
        Ok(text) => format.parse(chunk, text, first, build).err(),
        Err(e) => {
            // Reported as it is, before anything the chunk holds.
            meta.utf8 = Some(e.valid_up_to());
            None
        }
    };
}

/// Parses the chunks of `data` between `cuts` (its first line is line `lines_before + 1`; `first`:
/// it starts the body) on all cores, in the chunks of `pool` (reused from window to window), and
/// hands them to `format` in file order; with the newlines of the chunks read.
fn window<F: LineFormat>(
    pool: &mut Vec<(F::Chunk, Meta)>,
    path: &Path,
    (format, rows): (&mut F, &mut Rows),
    (data, cuts): (&[u8], &[usize]),
    (lines_before, first): (usize, bool),
) -> (Window, usize) {
    let count = cuts.len() - 1;
    if pool.len() < count {
        pool.resize_with(count, Default::default);
    }
    let chunks = &mut pool[..count];
    let build = !format.refused();
    let piece = |i: usize| &data[cuts[i]..cuts[i + 1]];
    let mut done = 0;
    if first && format.learning() {
        // The first chunk alone: it most likely teaches what the others need.
        parse_one(&*format, &mut chunks[0], piece(0), true, build);
        format.learn(&chunks[0].0, lines_before);
        done = 1;
    }
    let learning = format.learning();
    let shared = &*format;
    (chunks[done..].par_iter_mut().enumerate())
        .for_each(|(i, c)| parse_one(shared, c, piece(done + i), first && done + i == 0, build));
    // Chunks' line numbers start at the window's plus the newlines of the chunks before.
    let starts: Vec<usize> = (chunks.iter())
        .scan(lines_before, |lines, (_, m)| {
            Some(std::mem::replace(lines, *lines + m.newlines))
        })
        .collect();
    let newlines = chunks.iter().map(|(_, m)| m.newlines).sum();
    if learning && let Some(j) = (done..count).find(|&j| format.learn(&chunks[j].0, starts[j])) {
        // Chunks after `j` that went without what `j` learnt are read again knowing it.
        let shared = &*format;
        (chunks[j + 1..].par_iter_mut().enumerate())
            .filter(|(_, c)| shared.relearn(&c.0))
            .for_each(|(i, c)| parse_one(shared, c, piece(j + 1 + i), false, build));
    }
    if let Some((i, at)) = (0..count).find_map(|i| Some((i, chunks[i].1.utf8?))) {
        return (Window::Failed(utf8_error(path, starts[i], piece(i), at)), 0);
    }
    for (i, (c, m)) in chunks.iter_mut().enumerate() {
        match format.take(c, m.stop.take(), starts[i]) {
            Ok(()) => {}
            Err(Halt::Stop(e)) => return (Window::Stopped(e), newlines),
            Err(Halt::Abandon) => return (Window::Abandoned, 0),
        }
    }
    if build && !format.refused() {
        rows.append::<F>(chunks);
    }
    (Window::Read, newlines)
}

/// Reads the body of a file in `format` from `stream` (positioned at the body's first line):
/// windows of `tuning.window` bytes, each cut into chunks at [`LineFormat::cut_at`] and parsed on
/// all cores while the next window is read (room for the model is reserved from the stream's
/// length, if known). Returns the rows, or `None` if the format abandoned ([`Halt::Abandon`]).
///
/// # Errors
/// The first malformed line in file order (or, before it, a byte anywhere that is not UTF-8), as a
/// front-to-back reader finds it; [`Error::Io`] if reading fails.
pub(crate) fn read_chunked<R: Read + Send, F: LineFormat>(
    path: &Path,
    stream: &mut Stream<R>,
    format: &mut F,
    tuning: Tuning,
) -> Result<Option<Rows>> {
    let mut pool = Vec::new();
    let mut rows = Rows {
        group_ptr: format.grouped().then(|| vec![0]),
        ..Rows::default()
    };
    let (mut first, mut reserved) = (true, false);
    loop {
        if !stream.eof && stream.data().len() < tuning.window {
            stream.read_more(path)?;
        }
        let first_size = if first { tuning.first_chunk } else { tuning.chunk };
        let cuts = plan_cuts(stream.data(), stream.eof, first_size, tuning.chunk, F::cut_at);
        if cuts.len() < 2 {
            if stream.eof {
                return Ok(Some(rows));
            }
            stream.read_more(path)?;
            continue;
        }
        let end = cuts[cuts.len() - 1];
        let lines_before = stream.lines_before;
        let outcome = stream.read_ahead_while(path, end, |data| {
            let format = (&mut *format, &mut rows);
            window(&mut pool, path, format, (data, &cuts), (lines_before, first))
        })?;
        match outcome {
            Window::Read => {}
            // Reading the file as text first would have found a byte that is not UTF-8 anywhere.
            Window::Stopped(e) => return Err(stream.utf8_error_in_rest(path)?.unwrap_or(e)),
            Window::Failed(e) => return Err(e),
            Window::Abandoned => return Ok(None),
        }
        first = false;
        // Room for the whole model, estimated from the share of the file read so far.
        let read = stream.offset;
        if let Some(size) = stream.size
            && !reserved
            && read > 0
            && size > read
        {
            reserved = true;
            rows.matrix.reserve_for(size as f64 / read as f64 * 1.02);
        }
    }
}

/// A chunk's rows, checked as they close ([`check_row`]: sorted by target, duplicates, sums, zeros
/// dropped) and stored in CSR form, with the first fault of each kind in the chunk's line numbers.
/// Nothing is allocated per row: the row being read sits in a reused buffer.
#[derive(Default)]
pub(crate) struct ChunkRows {
    /// The rows kept.
    pub block: RowBlock<f64>,
    /// Rows of each state (MDPs).
    pub state_rows: Vec<u32>,
    /// First transition out of range or with a bad probability; first duplicate; first row or
    /// state refused (in state order).
    pub range: Option<ChunkError>,
    pub duplicate: Option<ChunkError>,
    pub fault: Option<ChunkError>,
    /// Rows rescaled by normalizing, and the largest deviation.
    pub rescaled: usize,
    pub worst: f64,
    /// A row sum refused in the current state, reported when the state closes (the message names
    /// the choice when the state has several).
    pending: Option<(Written, SumFault, u32)>,
    /// The row being read.
    pub row: Vec<Written>,
    /// Numbers parsed lately.
    pub numbers: NumberCache,
}

impl ChunkRows {
    /// Empties the rows and faults (keeping the memory and the number cache).
    pub fn clear(&mut self) {
        self.block.clear();
        self.state_rows.clear();
        self.range = None;
        self.duplicate = None;
        self.fault = None;
        self.rescaled = 0;
        self.worst = 0.0;
        self.pending = None;
        self.row.clear();
    }

    /// Adds a transition to `target` with probability `value` (of `state`, when the format names
    /// it) of a model of `n` states to the row being read, written on chunk line `line`, column
    /// `column` (where a bad one is reported).
    #[inline]
    pub fn transition(
        &mut self,
        n: usize,
        state: Option<StateId>,
        target: StateId,
        value: f64,
        line: usize,
        column: usize,
    ) {
        let fine = state.is_none_or(|s| (s as usize) < n)
            && (target as usize) < n
            && value >= 0.0
            && value.is_finite();
        if !fine
            && self.range.is_none()
            && let Some(message) = entry_fault(n, state, target, value)
        {
            self.range = Some(ChunkError::at(line, column, message));
        }
        self.row.push(Written {
            target,
            value,
            line,
            column,
        });
    }

    /// Checks and stores the row being read (nothing if it is empty): choice `choice` of `state`,
    /// which must be the state's choice number `expected` when the format numbers choices.
    pub fn close_row(
        &mut self,
        state: StateId,
        choice: u32,
        expected: Option<u32>,
        normalize: bool,
        build: bool,
    ) {
        if self.row.is_empty() {
            return;
        }
        let free = self.fault.is_none() && self.pending.is_none();
        match (
            check_row(&mut self.row, normalize),
            expected.filter(|&e| e != choice),
        ) {
            (Err(RowFault::Duplicate { second, first_line }), _) => {
                if self.duplicate.is_none() {
                    self.duplicate = Some(ChunkError::naming_lines(second.line, second.column, move |map| {
                        duplicate_message(state, second.target, choice, map(first_line))
                    }));
                }
            }
            // A choice out of order, reported at the row's first entry by target.
            (_, Some(expected)) if free => {
                let first = self.row[0];
                let message = choice_gap_message(state, choice, expected);
                self.fault = Some(ChunkError::at(first.line, first.column, message));
            }
            (_, Some(_)) => {}
            (Ok(scale), None) => append_row(
                &self.row,
                &scale,
                build,
                (
                    &mut self.block.cols,
                    &mut self.block.vals,
                    &mut self.block.row_ends,
                ),
                (&mut self.rescaled, &mut self.worst),
            ),
            (Err(RowFault::Sum { at, fault }), None) if free => self.pending = Some((at, fault, choice)),
            (Err(RowFault::Sum { .. }), None) => {}
        }
        self.row.clear();
    }

    /// Closes `state`, which has `rows` rows (its last closed already): a refused row sum is
    /// reported (naming the choice when the state has several); `keep`: its row count is stored.
    pub fn close_state(&mut self, state: StateId, rows: u32, keep: bool) {
        if let Some((at, fault, choice)) = self.pending.take() {
            let several = rows > choice + 1;
            self.fault = Some(ChunkError::at(
                at.line,
                at.column,
                sum_message(state, choice, several, fault),
            ));
        }
        if keep {
            self.state_rows.push(rows);
        }
    }
}

/// Action names per row (a chunk's or a file's), coded: below [`RowNames::NAMED`] the format's own
/// codes (no name, the choice's index), `NAMED + i` for name `i`, the names in order of first use.
#[derive(Default)]
pub(crate) struct RowNames {
    /// Per row, its code.
    pub codes: Vec<u32>,
    /// The names, by index.
    pub names: Vec<String>,
    index: std::collections::HashMap<String, u32>,
}

impl RowNames {
    /// The code of the first name.
    pub const NAMED: u32 = 2;

    /// The code of `name`, added if new.
    pub fn code(&mut self, name: &str) -> u32 {
        if let Some(&i) = self.index.get(name) {
            return Self::NAMED + i;
        }
        let i = self.names.len() as u32;
        self.names.push(name.to_string());
        self.index.insert(name.to_string(), i);
        Self::NAMED + i
    }

    /// The name of `code`, if it is a name's.
    pub fn name(&self, code: u32) -> Option<&str> {
        let i = code.checked_sub(Self::NAMED)?;
        self.names.get(i as usize).map(String::as_str)
    }

    /// Appends the rows of `other` (a later chunk's), its names renumbered as here.
    pub fn append(&mut self, other: &RowNames) {
        let map: Vec<u32> = other.names.iter().map(|name| self.code(name)).collect();
        let named = |c: u32| c.checked_sub(Self::NAMED).map_or(c, |i| map[i as usize]);
        self.codes.extend(other.codes.iter().map(|&c| named(c)));
    }
}

/// A chunk's error kept until the end, with the number of lines before the chunk.
pub(crate) type Late = Option<(ChunkError, usize)>;

/// The first transition out of range, duplicate and refused row of the chunks read so far, each
/// reported only once the whole body has been read (in this order), and the rows rescaled.
#[derive(Default)]
pub(crate) struct Faults {
    pub range: Late,
    pub duplicate: Late,
    pub fault: Late,
    pub rescaled: usize,
    pub worst: f64,
}

impl Faults {
    /// Whether the model is refused.
    pub fn any(&self) -> bool {
        self.range.is_some() || self.duplicate.is_some() || self.fault.is_some()
    }

    /// Keeps the first fault of each kind of `rows`, a chunk after `lines_before` lines.
    pub fn keep(&mut self, rows: &mut ChunkRows, lines_before: usize) {
        for (slot, candidate) in [
            (&mut self.range, &mut rows.range),
            (&mut self.duplicate, &mut rows.duplicate),
            (&mut self.fault, &mut rows.fault),
        ] {
            if slot.is_none() {
                *slot = candidate.take().map(|e| (e, lines_before));
            }
        }
        self.rescaled += rows.rescaled;
        self.worst = self.worst.max(rows.worst);
    }

    /// The error to report, if any, in a file of `last_line` lines; and the note that rows were
    /// rescaled, if some were.
    pub fn finish(self, path: &Path, last_line: usize) -> Result<Option<String>> {
        if let Some((e, lines_before)) = self.range.or(self.duplicate).or(self.fault) {
            return Err(e.into_error(path, lines_before, last_line));
        }
        Ok((self.rescaled > 0).then(|| normalized_note(self.rescaled, self.worst)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_split_like_str_lines() {
        let mut state = 0x1234_5678_9abc_def1u64;
        for _ in 0..3000 {
            let len = (state % 12) as usize;
            let mut text = String::new();
            for _ in 0..len {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                text.push(['a', '\r', '\n', ' '][(state % 4) as usize]);
            }
            let want: Vec<&str> = text.lines().map(|l| l.strip_suffix('\r').unwrap_or(l)).collect();
            let mut got = Vec::new();
            let mut at = 0;
            let b = text.as_bytes();
            while at < b.len() {
                let (line, next) = text_line(&text, at);
                got.push(line);
                at = next;
            }
            assert_eq!(got, want, "{text:?}");
            let newlines = text.matches('\n').count();
            assert_eq!(count_newlines(b), newlines);
            let mut s = Stream::new(b, 3, None);
            s.read_more(Path::new("x")).unwrap();
            while !s.eof {
                s.read_more(Path::new("x")).unwrap();
            }
            let n = s.data().len();
            s.consume(n, newlines);
            assert_eq!(s.total_lines(), want.len(), "{text:?}");
        }
    }

    #[test]
    fn cuts_fall_on_allowed_lines() {
        let data = b"s 1\nx\nx\ns 2\nx\ns 3\nx\nx\nx\n";
        let cut = |d: &[u8], at: usize| {
            let mut ls = line_start_from(d, at)?;
            loop {
                if d[ls] == b's' {
                    return Some(ls);
                }
                ls = line_start_from(d, ls + 1)?;
            }
        };
        assert_eq!(plan_cuts(data, true, 1, 1, cut), vec![0, 8, 14, data.len()]);
        assert_eq!(plan_cuts(data, false, 1, 1, cut), vec![0, 8, 14]);
        assert_eq!(plan_cuts(data, false, 100, 100, cut), vec![0]);
        assert_eq!(plan_cuts(b"", true, 1, 1, cut), vec![0]);
    }

    #[test]
    fn utf8_errors_are_found_across_windows() {
        let mut text = b"ok\nfine \xc3\xa9\n".to_vec();
        text.extend_from_slice(b"ab\xc3");
        let mut s = Stream::new(&text[..], 4, None);
        s.read_more(Path::new("f")).unwrap();
        let e = s.utf8_error_in_rest(Path::new("f")).unwrap().unwrap();
        assert_eq!(
            e.to_string(),
            "f:3:3: not UTF-8 text (a binary file, or another encoding)"
        );
        let mut s = Stream::new(&b"a\n\xc3\xa9\xc3\xa9\n"[..], 3, Some(7));
        s.read_more(Path::new("f")).unwrap();
        assert!(s.utf8_error_in_rest(Path::new("f")).unwrap().is_none());
    }

    #[test]
    fn fast_tokens() {
        assert_eq!(digits_u32(b"4294967295 ", 0), Some((u32::MAX, 10)));
        assert_eq!(digits_u32(b"4294967296", 0), None);
        assert_eq!(digits_u32(b"00000000001", 0), None);
        assert_eq!(digits_u32(b"x", 0), None);
        assert_eq!(plain_number("0.25\n", 0), Some((0.25, 4)));
        assert_eq!(plain_number("1e999", 0), None);
        assert_eq!(plain_number("1/3", 0), Some((1.0, 1)));
        let mut cache = NumberCache::default();
        let pad = " ".repeat(24);
        for t in [
            "0.5 ",
            "0.25",
            "0.5",
            "0.50",
            "1e999",
            "0.25",
            "7",
            "0.5",
            "0.16666666666666666",
        ] {
            for text in [t.to_string(), format!("{t}{pad}"), format!("{t} {t}{pad}")] {
                assert_eq!(cache.plain_number(&text, 0), plain_number(&text, 0), "{text}");
            }
        }
        assert_eq!(end_of_line(b"a\r\nb", 1), Some((3, true)));
        assert_eq!(end_of_line(b"a\r", 1), Some((2, false)));
        assert_eq!(end_of_line(b"a\r\r\n", 1), None);
    }
}
