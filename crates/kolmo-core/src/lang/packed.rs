//! States of a PRISM model packed into machine words: each variable takes the bits its range
//! needs (`⌈log₂(high − low + 1)⌉`, none for a single value), stored as its offset from the
//! range's low end; no variable straddles two words. A state of a model with `b` bits of
//! variables takes `8·⌈b/64⌉` bytes (Storm's `storage/BitVector` state encoding does the same).

use super::build::VariableInfo;

/// Where each variable lives in a packed state.
#[derive(Clone, Debug)]
pub struct Layout {
    fields: Vec<Field>,
    words: usize,
}

#[derive(Clone, Copy, Debug)]
struct Field {
    word: usize,
    shift: u32,
    mask: u64,
    low: i32,
}

impl Layout {
    /// The layout of `variables`, in slot order.
    #[must_use]
    pub fn new(variables: &[VariableInfo]) -> Self {
        let mut fields = Vec::with_capacity(variables.len());
        let (mut word, mut used) = (0usize, 0u32);
        for v in variables {
            let span = (i64::from(v.high) - i64::from(v.low)) as u64;
            let bits = 64 - span.leading_zeros();
            if used + bits > 64 {
                word += 1;
                used = 0;
            }
            let mask = if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
            fields.push(Field {
                word,
                shift: used,
                mask,
                low: v.low,
            });
            used += bits;
        }
        Self {
            fields,
            words: word + 1,
        }
    }

    /// Words per state.
    #[must_use]
    pub fn words(&self) -> usize {
        self.words
    }

    /// Variable `k`'s value in `p`.
    #[inline]
    #[must_use]
    pub fn get(&self, p: &[u64], k: usize) -> i32 {
        let f = self.fields[k];
        (((p[f.word] >> f.shift) & f.mask) as i64 + i64::from(f.low)) as i32
    }

    /// Sets variable `k` to `v` (within its range) in `p`.
    #[inline]
    pub fn set(&self, p: &mut [u64], k: usize, v: i32) {
        let f = self.fields[k];
        let x = (i64::from(v) - i64::from(f.low)) as u64;
        p[f.word] = (p[f.word] & !(f.mask << f.shift)) | ((x & f.mask) << f.shift);
    }

    /// Every variable's value of `p` into `out` (one slot per variable).
    #[inline]
    pub fn unpack(&self, p: &[u64], out: &mut [i32]) {
        for (k, o) in out.iter_mut().enumerate().take(self.fields.len()) {
            *o = self.get(p, k);
        }
    }

    /// `values` (one per variable) packed into `out`.
    pub fn pack(&self, values: &[i32], out: &mut [u64]) {
        out.iter_mut().for_each(|w| *w = 0);
        for (k, &v) in values.iter().enumerate() {
            self.set(out, k, v);
        }
    }
}

/// Every state of a built model, packed: state `s` is `words()` words from `s · words()`.
#[derive(Clone, Debug)]
pub struct PackedStates {
    layout: Layout,
    data: Vec<u64>,
    /// Words per state in `data` (at least the layout's).
    stride: usize,
}

impl PackedStates {
    pub(crate) fn new(layout: Layout, data: Vec<u64>, stride: usize) -> Self {
        Self { layout, data, stride }
    }

    /// The number of states.
    #[must_use]
    pub fn len(&self) -> usize {
        self.data.len() / self.stride
    }

    /// Whether there is no state.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// The number of variables.
    #[must_use]
    pub fn variables(&self) -> usize {
        self.layout.fields.len()
    }

    /// The packed words of state `s`.
    #[must_use]
    pub fn packed(&self, s: usize) -> &[u64] {
        let w = self.stride;
        &self.data[s * w..(s + 1) * w]
    }

    /// State `s`'s variables' values into `out` (length [`variables`](Self::variables)).
    #[inline]
    pub fn unpack(&self, s: usize, out: &mut [i32]) {
        self.layout.unpack(self.packed(s), out);
    }

    /// State `s`'s variables' values.
    #[must_use]
    pub fn values(&self, s: usize) -> Vec<i32> {
        let mut v = vec![0; self.variables()];
        self.unpack(s, &mut v);
        v
    }

    /// Bytes held.
    #[must_use]
    pub fn bytes(&self) -> usize {
        self.data.len() * 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_round_trip_through_the_words() {
        let vars: Vec<VariableInfo> = [(-3, 4), (0, 1), (7, 7), (0, (1 << 30) - 1), (-5, 1 << 30)]
            .iter()
            .map(|&(low, high)| VariableInfo {
                name: "v".into(),
                low,
                high,
                boolean: false,
            })
            .collect();
        let l = Layout::new(&vars);
        // 3 + 1 + 0 + 30 bits in the first word; the 31-bit one would cross 64: the second.
        assert_eq!(l.words(), 2);
        let values = [-3, 1, 7, (1 << 30) - 1, 1 << 30];
        let mut p = vec![0u64; 2];
        l.pack(&values, &mut p);
        let mut out = [0; 5];
        l.unpack(&p, &mut out);
        assert_eq!(out, values);
        l.set(&mut p, 0, 4);
        assert_eq!(l.get(&p, 0), 4);
        assert_eq!(l.get(&p, 4), 1 << 30);
    }
}
