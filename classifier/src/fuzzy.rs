//! Spelling correction for words no lexicon knows: "batteris" → "battery",
//! "asbestoes" → "asbestos". A word is corrected to the one vocabulary word
//! within a small edit distance (Damerau–Levenshtein: 1 for words of 5–7
//! letters, 2 from 8), found through an index of one-letter deletions.
//!
//! Guards against collisions between short words: nothing under 5 letters
//! is corrected, words with digits are not, and a correction must be unique
//! at its distance (two candidates at the best distance: no correction).

use rustc_hash::FxHashMap;

/// The deletion index over the vocabulary: hashes of every word and of
/// each of its one-letter deletions, so that a query allocates nothing.
pub struct Speller {
    words: Vec<Vec<char>>,
    /// What each word reads as; candidates that read the same do not tie.
    reads: Vec<String>,
    /// The vocabulary word each entry stands for (the singular of a plural
    /// entry), which a correction returns.
    base: Vec<String>,
    index: FxHashMap<u64, Vec<u32>>,
    /// One bit per key of `index` (by the key's top bits): a clear bit
    /// means the key is absent, so most look-ups of a query's deletion keys
    /// end after one memory access.
    present: Vec<u64>,
}

/// The filter has `1 << FILTER_BITS` bits.
const FILTER_BITS: u32 = 20;

/// The filter bit of a deletion key: (word, mask).
fn filter_bit(key: u64) -> (usize, u64) {
    let bit = key >> (64 - FILTER_BITS);
    ((bit >> 6) as usize, 1u64 << (bit & 63))
}

/// The base of the deletion hash: odd, so that it has an inverse modulo
/// 2^64 ([`BASE_INV`]).
const BASE: u64 = 0x9e37_79b9_7f4a_7c15;

/// The inverse of [`BASE`] modulo 2^64 (Newton's iteration; each step
/// doubles the correct low bits, from 3).
const BASE_INV: u64 = {
    let mut inv = BASE;
    let mut i = 0;
    while i < 5 {
        inv = inv.wrapping_mul(2u64.wrapping_sub(BASE.wrapping_mul(inv)));
        i += 1;
    }
    inv
};

/// A letter's term in the deletion hash.
fn letter(c: char) -> u64 {
    u64::from(c)
}

/// The key of a string of `len` letters whose polynomial sum (letter `k`
/// times `BASE^k`) is `sum`: the sum and the length mixed by one
/// multiplication (which carries every bit into the top bits, read by
/// [`filter_bit`]) and the top half folded onto the bottom one (read by
/// the map).
fn key_of(sum: u64, len: usize) -> u64 {
    let x = (sum ^ (len as u64).wrapping_mul(0xff51_afd7_ed55_8ccd))
        .wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 32)
}

/// Hash of `w` without the letters at `skip` (positions, ascending).
fn hash_without(w: &[char], skip: &[usize]) -> u64 {
    let (mut sum, mut power) = (0u64, 1u64);
    for (i, c) in w.iter().enumerate() {
        if !skip.contains(&i) {
            sum = sum.wrapping_add(letter(*c).wrapping_mul(power));
            power = power.wrapping_mul(BASE);
        }
    }
    key_of(sum, w.len() - skip.len())
}

/// The longest word the speller corrects, in letters.
const MAX_LETTERS: usize = 30;

/// The keys [`hash_without`] gives `w` with nothing, each one letter and
/// (with `pairs`) each two letters deleted, in that order; each computed
/// from the prefix sums of `w` in a few steps (the letters after a
/// deleted one move down one power of [`BASE`]: a multiplication by
/// [`BASE_INV`]) instead of rehashing every variant.
#[cfg(test)]
fn deletion_keys(w: &[char], pairs: bool) -> Vec<u64> {
    let mut keys = Vec::new();
    deletion_keys_into(w, pairs, |k| keys.push(k));
    keys
}

/// [`deletion_keys`], handing each key to `emit` (no allocation for words
/// of up to [`MAX_LETTERS`] letters).
fn deletion_keys_into(w: &[char], pairs: bool, mut emit: impl FnMut(u64)) {
    let n = w.len();
    // sums[i]: letters w[..i], letter k times BASE^k.
    let mut stack = [0u64; MAX_LETTERS + 1];
    let mut heap = Vec::new();
    let sums: &mut [u64] = if n < stack.len() {
        &mut stack[..=n]
    } else {
        heap.resize(n + 1, 0);
        &mut heap
    };
    let (mut sum, mut power) = (0u64, 1u64);
    for (i, c) in w.iter().enumerate() {
        sum = sum.wrapping_add(letter(*c).wrapping_mul(power));
        power = power.wrapping_mul(BASE);
        sums[i + 1] = sum;
    }
    // Each pair: the sums before and after the letter at its position.
    let around = sums.windows(2);
    emit(key_of(sum, n));
    for pair in around.clone() {
        let &[before, through] = pair else { continue };
        // The letters after the deleted one, one power down.
        let after = sum.wrapping_sub(through).wrapping_mul(BASE_INV);
        emit(key_of(before.wrapping_add(after), n - 1));
    }
    if pairs {
        let inv2 = BASE_INV.wrapping_mul(BASE_INV);
        for (i, first) in around.enumerate() {
            let &[before, through] = first else { continue };
            for second in sums.get(i + 1..).unwrap_or_default().windows(2) {
                let &[upto, past] = second else { continue };
                // Letters between the two deletions one power down, those
                // after the second two powers down.
                let between = upto.wrapping_sub(through).wrapping_mul(BASE_INV);
                let after = sum.wrapping_sub(past).wrapping_mul(inv2);
                emit(key_of(
                    before.wrapping_add(between).wrapping_add(after),
                    n - 2,
                ));
            }
        }
    }
}

impl Speller {
    /// Indexes every alphabetic word of 3 letters or more.
    pub fn new(vocabulary: &[(&str, &str)]) -> Self {
        // Each word also with a plural "s" (the vocabulary is folded to the
        // singular, while misspellings are often of the plural: "tyers").
        let mut pairs: Vec<(Vec<char>, String, String)> = vocabulary
            .iter()
            .filter(|(w, _)| w.chars().count() >= 3 && w.chars().all(char::is_alphabetic))
            .flat_map(|(w, r)| {
                let plural: Vec<char> = w.chars().chain(std::iter::once('s')).collect();
                [
                    (w.chars().collect(), (*r).to_owned(), (*w).to_owned()),
                    (plural, (*r).to_owned(), (*w).to_owned()),
                ]
            })
            .collect();
        pairs.sort();
        pairs.dedup_by(|a, b| a.0 == b.0);
        let mut words = Vec::with_capacity(pairs.len());
        let mut reads = Vec::with_capacity(pairs.len());
        let mut base = Vec::with_capacity(pairs.len());
        for (w, r, b) in pairs {
            words.push(w);
            reads.push(r);
            base.push(b);
        }
        let mut index: FxHashMap<u64, Vec<u32>> = FxHashMap::default();
        for (i, w) in words.iter().enumerate() {
            let id = u32::try_from(i).unwrap_or(u32::MAX);
            index.entry(hash_without(w, &[])).or_default().push(id);
            for k in 0..w.len() {
                let ids = index.entry(hash_without(w, &[k])).or_default();
                if ids.last() != Some(&id) {
                    ids.push(id);
                }
            }
        }
        let mut present = vec![0u64; (1usize << FILTER_BITS) / 64];
        for key in index.keys() {
            let (at, mask) = filter_bit(*key);
            if let Some(w) = present.get_mut(at) {
                *w |= mask;
            }
        }
        Self {
            words,
            reads,
            base,
            index,
            present,
        }
    }

    /// The vocabulary entries with deletion key `key`.
    fn ids(&self, key: u64) -> &[u32] {
        let (at, mask) = filter_bit(key);
        if self.present.get(at).is_none_or(|w| w & mask == 0) {
            return &[];
        }
        self.index.get(&key).map_or(&[], Vec::as_slice)
    }

    /// The unique vocabulary word close to `word`, if any.
    pub fn correct(&self, word: &str) -> Option<String> {
        self.correct_from(word, 5)
    }

    /// Every word one edit away from a four-letter `word` (the caller keeps
    /// the one that forms a known pair with a neighbour).
    pub fn near_short(&self, word: &str) -> Vec<String> {
        let w: Vec<char> = word.chars().collect();
        if w.len() != 4 || !w.iter().all(|c| c.is_alphabetic()) {
            return Vec::new();
        }
        let mut keys = vec![hash_without(&w, &[])];
        keys.extend((0..w.len()).map(|i| hash_without(&w, &[i])));
        let mut out: Vec<String> = Vec::new();
        for k in &keys {
            for &id in self.ids(*k) {
                let Some(cand) = self.words.get(id as usize) else {
                    continue;
                };
                if cand.first() == w.first() && distance(&w, cand) == 1 {
                    if let Some(s) = self.base.get(id as usize) {
                        if !out.contains(s) {
                            out.push(s.clone());
                        }
                    }
                }
            }
        }
        out
    }

    /// Like [`Speller::correct`], for words of `min` letters or more; the
    /// caller guards shorter words (see `Lexicon::read`).
    pub fn correct_from(&self, word: &str, min: usize) -> Option<String> {
        let mut letters = ['\0'; MAX_LETTERS];
        let mut n = 0;
        for c in word.chars() {
            if n == MAX_LETTERS || !c.is_alphabetic() {
                return None;
            }
            letters[n] = c;
            n += 1;
        }
        if n < min {
            return None;
        }
        let w = &letters[..n];
        let max = if n >= 8 { 2 } else { 1 };
        // Best: smallest distance, then longest common prefix, then longest.
        let mut best: Option<((usize, usize, usize), u32)> = None;
        let mut tie = false;
        let mut seen = Seen::default();
        // Each key is looked up as it is computed, in the order of
        // [`deletion_keys`].
        deletion_keys_into(w, max == 2, |k| {
            for &id in self.ids(k) {
                if !seen.insert(id) {
                    continue;
                }
                let Some(cand) = self.words.get(id as usize) else {
                    continue;
                };
                if cand.first() != w.first() || cand.len().abs_diff(n) > max {
                    continue;
                }
                let d = distance(w, cand);
                if d == 0 || d > max {
                    continue;
                }
                let lcp = w.iter().zip(cand).take_while(|(a, b)| a == b).count();
                let key = (d, usize::MAX - lcp, usize::MAX - cand.len());
                match best {
                    Some((bk, bid))
                        if key == bk
                            && self.reads.get(bid as usize) != self.reads.get(id as usize) =>
                    {
                        tie = true
                    }
                    Some((bk, _)) if key >= bk => {}
                    _ => {
                        best = Some((key, id));
                        tie = false;
                    }
                }
            }
        });
        match best {
            Some((_, id)) if !tie => self.base.get(id as usize).cloned(),
            _ => None,
        }
    }
}

/// The candidate ids looked at so far: on the stack up to 32, then on the
/// heap (same answers as a `Vec` with `contains`).
#[derive(Default)]
struct Seen {
    small: [u32; 32],
    len: usize,
    more: Vec<u32>,
}

impl Seen {
    /// Adds `id`; false when it was there already.
    fn insert(&mut self, id: u32) -> bool {
        let small = &self.small[..self.len];
        if small.contains(&id) || self.more.contains(&id) {
            return false;
        }
        if self.len < self.small.len() {
            self.small[self.len] = id;
            self.len += 1;
        } else {
            self.more.push(id);
        }
        true
    }
}

/// Longest word [`distance`] compares without allocating.
const STACK_WORD: usize = 40;

/// Damerau–Levenshtein distance (optimal string alignment). Keeps three
/// rows of the table on the stack (words up to [`STACK_WORD`] letters),
/// used in turn (row `i` in `rows[i % 3]`), so that no row is copied.
pub fn distance(a: &[char], b: &[char]) -> usize {
    if b.len() >= STACK_WORD {
        return distance_table(a, b);
    }
    let m = b.len();
    let mut rows = [[0usize; STACK_WORD]; 3];
    for (j, cell) in rows[0].iter_mut().enumerate().take(m + 1) {
        *cell = j;
    }
    for i in 1..=a.len() {
        // Rows i-2, i-1 and i.
        let [prev2, prev, cur] = match i % 3 {
            0 => [1, 2, 0],
            1 => [2, 0, 1],
            _ => [0, 1, 2],
        };
        rows[cur][0] = i;
        for j in 1..=m {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (rows[prev][j] + 1)
                .min(rows[cur][j - 1] + 1)
                .min(rows[prev][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(rows[prev2][j - 2] + 1);
            }
            rows[cur][j] = v;
        }
    }
    rows[a.len() % 3][m]
}

/// [`distance`] with the whole table on the heap, for long words.
fn distance_table(a: &[char], b: &[char]) -> usize {
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = v;
        }
    }
    d[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn misspellings_are_corrected_and_short_words_are_not() {
        let words = ["battery", "asbestos", "lead", "mercury", "expired"];
        let pairs: Vec<(&str, &str)> = words.iter().map(|w| (*w, *w)).collect();
        let s = Speller::new(&pairs);
        let fix = |w: &str| s.correct(w);
        assert_eq!(fix("batteris").as_deref(), Some("battery"));
        assert_eq!(fix("asbestoes").as_deref(), Some("asbestos"));
        assert_eq!(fix("exipred").as_deref(), Some("expired"));
        assert_eq!(fix("leed"), None);
        assert_eq!(fix("merkury").as_deref(), Some("mercury"));
    }

    #[test]
    fn the_stack_distance_is_the_table_distance() {
        let words = [
            "",
            "a",
            "ab",
            "ba",
            "lead",
            "leed",
            "batteris",
            "battery",
            "asbestoes",
            "asbestos",
            "ắc quy chì",
            "acquy",
            "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopq",
        ];
        for x in words {
            for y in words {
                let (a, b): (Vec<char>, Vec<char>) = (x.chars().collect(), y.chars().collect());
                assert_eq!(distance(&a, &b), distance_table(&a, &b), "{x} / {y}");
            }
        }
        let a: Vec<char> = "batteris".chars().collect();
        let b: Vec<char> = "battery".chars().collect();
        assert_eq!(distance(&a, &b), 2);
    }

    #[test]
    fn deletion_keys_are_the_hashes_of_the_deletions() {
        assert_eq!(BASE.wrapping_mul(BASE_INV), 1);
        let long = "abcdefghijklmnopqrstuvwxyzabcdefghij";
        for word in [
            "",
            "a",
            "ab",
            "lead",
            "batteris",
            "asbestoes",
            "ắc quy chì",
            long,
        ] {
            let w: Vec<char> = word.chars().collect();
            let n = w.len();
            let mut want = vec![hash_without(&w, &[])];
            want.extend((0..n).map(|i| hash_without(&w, &[i])));
            assert_eq!(deletion_keys(&w, false), want);
            for i in 0..n {
                for j in i + 1..n {
                    want.push(hash_without(&w, &[i, j]));
                }
            }
            assert_eq!(deletion_keys(&w, true), want);
        }
    }
}
