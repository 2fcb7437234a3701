//! Values of sparse matrices stored as one-byte codes into a table of at most [`CODES`] values, when
//! they take so few distinct values (dice games, walks, uniform choices: 1/6 and its multiples on a
//! board). A kernel that streams the matrix then reads 5 bytes an entry (a `u32` column and a code)
//! instead of 12. Used by the Krylov solver's splitting ([`CodedValues`]) and by the sliced
//! transpose ([`Lane`], [`Dict`], [`merge_codes`]).
//!
//! Decoding is a table look-up of the very `f64` that was coded, so coded and direct storage give
//! the same results bit for bit.

use rayon::prelude::*;

/// Size of a code table. A [`Dict`] gives code 0 to `+0.0` (the sliced transpose's padding).
pub(crate) const CODES: usize = 256;

/// A table of values, indexed by code.
pub(crate) type Table = [f64; CODES];

/// The table of values stored directly (never read).
#[doc(hidden)]
pub static NO_TABLE: Table = [0.0; CODES];

/// A stored value: the `f64` itself, or a one-byte code into a table.
pub(crate) trait Lane: Copy + Default + Send + Sync {
    /// The value (`table` is read only by codes).
    fn decode(self, table: &Table) -> f64;
}

impl Lane for f64 {
    #[inline(always)]
    fn decode(self, _: &Table) -> f64 {
        self
    }
}

impl Lane for u8 {
    #[inline(always)]
    fn decode(self, table: &Table) -> f64 {
        table[self as usize]
    }
}

/// The distinct values met so far, at most [`CODES`] (code 0 is `+0.0`), found by an
/// open-addressing hash on their bits (at most half full).
pub(crate) struct Dict {
    values: Vec<f64>,
    /// 0 for an empty slot, else the code + 1.
    slots: Box<[u16; 2 * CODES]>,
}

impl Dict {
    /// A dictionary holding `+0.0` (code 0).
    pub fn new() -> Self {
        let mut d = Dict {
            values: Vec::with_capacity(CODES),
            slots: Box::new([0; 2 * CODES]),
        };
        d.code(0.0);
        d
    }

    /// The values, by code.
    pub fn values(&self) -> &[f64] {
        &self.values
    }

    /// The code of `v` (by its bits), added if new; `None` when the table is full.
    #[inline]
    pub fn code(&mut self, v: f64) -> Option<u8> {
        let bits = v.to_bits();
        // Fibonacci hashing: the top 9 bits of bits · 2⁶⁴/φ.
        let mut h = (bits.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 55) as usize;
        loop {
            match self.slots[h] {
                0 => {
                    if self.values.len() == CODES {
                        return None;
                    }
                    let c = self.values.len();
                    self.values.push(v);
                    self.slots[h] = c as u16 + 1;
                    return Some(c as u8);
                }
                s if self.values[s as usize - 1].to_bits() == bits => return Some((s - 1) as u8),
                _ => h = (h + 1) % (2 * CODES),
            }
        }
    }
}

/// A table of values, and for each dictionary the positions of its codes in the table.
pub(crate) type CodeTables = (Box<Table>, Vec<[u8; CODES]>);

/// One table for the values of all `dicts` (`None` if they are more than [`CODES`]), sorted by
/// bits (`+0.0` first), and each dictionary's map from its codes to the table's.
pub(crate) fn merge_codes<'a>(dicts: impl Iterator<Item = &'a Dict> + Clone) -> Option<CodeTables> {
    let mut all: Vec<u64> = dicts
        .clone()
        .flat_map(|d| d.values.iter().map(|v| v.to_bits()))
        .collect();
    all.sort_unstable();
    all.dedup();
    if all.len() > CODES {
        return None;
    }
    let mut table = Box::new([0.0; CODES]);
    for (t, &bits) in table.iter_mut().zip(&all) {
        *t = f64::from_bits(bits);
    }
    let maps = dicts
        .map(|d| {
            let mut map = [0u8; CODES];
            for (m, v) in map.iter_mut().zip(&d.values) {
                *m = all
                    .binary_search(&v.to_bits())
                    .expect("every value is in the table") as u8;
            }
            map
        })
        .collect();
    Some((table, maps))
}

/// Entries coded per parallel task by [`CodedValues::new`].
const CHUNK: usize = 1 << 14;

/// The values of a sparse matrix's entries: as they are, or one byte per entry into a table when
/// they take at most [`CODES`] distinct values (counting `+0.0`).
#[doc(hidden)]
#[derive(Debug)]
pub enum CodedValues {
    Full(Vec<f64>),
    Table(Vec<u8>, Box<Table>),
}

impl CodedValues {
    /// `vals`, coded if they take few enough values: chunks are coded in parallel, each with its
    /// own dictionary (giving up past [`CODES`]), then the dictionaries merged into one table.
    /// O(len) time.
    pub fn new(vals: Vec<f64>) -> Self {
        let parts: Option<Vec<(Dict, Vec<u8>)>> = vals
            .par_chunks(CHUNK)
            .map(|c| {
                let mut dict = Dict::new();
                let codes: Option<Vec<u8>> = c.iter().map(|&v| dict.code(v)).collect();
                codes.map(|codes| (dict, codes))
            })
            .collect();
        let Some(parts) = parts else {
            return Self::Full(vals);
        };
        let Some((table, maps)) = merge_codes(parts.iter().map(|(d, _)| d)) else {
            return Self::Full(vals);
        };
        let mut codes = Vec::with_capacity(vals.len());
        for ((_, local), map) in parts.iter().zip(&maps) {
            codes.extend(local.iter().map(|&c| map[c as usize]));
        }
        Self::Table(codes, table)
    }

    /// The value of entry `p`.
    pub fn get(&self, p: usize) -> f64 {
        match self {
            Self::Full(v) => v[p],
            Self::Table(c, t) => t[c[p] as usize],
        }
    }
}

/// Reading entry `p`'s value, monomorphised per storage (see [`with_values!`]).
#[doc(hidden)]
pub trait ValueAt: Copy + Send + Sync {
    /// The value of entry `p`.
    fn at(self, p: usize) -> f64;
}

/// The entries of a [`CodedValues`] stored as `V`.
#[doc(hidden)]
#[derive(Clone, Copy)]
pub struct ValueSlice<'a, V>(pub &'a [V], pub &'a Table);

impl<V: Lane> ValueAt for ValueSlice<'_, V> {
    #[inline(always)]
    fn at(self, p: usize) -> f64 {
        self.0[p].decode(self.1)
    }
}

/// Runs `$body` with `$v` bound to a [`ValueAt`] reader of the [`CodedValues`] `$vals`, compiled
/// once per storage.
#[doc(hidden)]
#[macro_export]
macro_rules! with_values {
    ($vals:expr, $v:ident => $body:expr) => {
        match $vals {
            $crate::sparse::CodedValues::Full(x) => {
                let $v = $crate::sparse::ValueSlice(&x[..], &$crate::sparse::NO_TABLE);
                $body
            }
            $crate::sparse::CodedValues::Table(c, t) => {
                let $v = $crate::sparse::ValueSlice(&c[..], &**t);
                $body
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn few_values_are_coded_many_are_not() {
        let few: Vec<f64> = (0..100_000).map(|i| (i % 7) as f64 / 6.0).collect();
        let coded = CodedValues::new(few.clone());
        assert!(matches!(coded, CodedValues::Table(..)));
        for (p, &v) in few.iter().enumerate() {
            assert_eq!(coded.get(p).to_bits(), v.to_bits());
        }
        // 255 values besides 0 fit; 256 do not, even spread over the chunks.
        let fits: Vec<f64> = (0..100_000).map(|i| (i % 256) as f64).collect();
        assert!(matches!(CodedValues::new(fits), CodedValues::Table(..)));
        let over: Vec<f64> = (0..100_000).map(|i| 1.0 + (i % 256) as f64).collect();
        assert!(matches!(CodedValues::new(over), CodedValues::Full(..)));
    }
}
