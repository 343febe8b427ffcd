//! Spelling correction for words no lexicon knows: "batteris" → "battery",
//! "asbestoes" → "asbestos". A word is corrected to the one vocabulary word
//! within a small edit distance (Damerau–Levenshtein: 1 for words of 5–7
//! letters, 2 from 8), found through an index of one-letter deletions.
//!
//! Guards against collisions between short words: nothing under 5 letters
//! is corrected, words with digits are not, and a correction must be unique
//! at its distance (two candidates at the best distance: no correction).

use std::collections::HashMap;

/// The deletion index over the vocabulary.
pub struct Speller {
    words: Vec<String>,
    index: HashMap<String, Vec<u32>>,
}

impl Speller {
    /// Indexes every word of 4 letters or more.
    pub fn new(vocabulary: &[&str]) -> Self {
        let mut words: Vec<String> = vocabulary
            .iter()
            .filter(|w| w.chars().count() >= 4 && w.chars().all(char::is_alphabetic))
            .map(|w| (*w).to_owned())
            .collect();
        words.sort();
        words.dedup();
        let mut index: HashMap<String, Vec<u32>> = HashMap::new();
        for (i, w) in words.iter().enumerate() {
            let id = u32::try_from(i).unwrap_or(u32::MAX);
            index.entry(w.clone()).or_default().push(id);
            for d in deletions(w) {
                index.entry(d).or_default().push(id);
            }
        }
        Self { words, index }
    }

    /// The unique vocabulary word close to `word`, if any.
    pub fn correct(&self, word: &str) -> Option<&str> {
        let n = word.chars().count();
        if n < 5 || !word.chars().all(char::is_alphabetic) {
            return None;
        }
        let max = if n >= 8 { 2 } else { 1 };
        let mut keys = vec![word.to_owned()];
        keys.extend(deletions(word));
        if max == 2 {
            let second: Vec<String> = keys.iter().skip(1).flat_map(|k| deletions(k)).collect();
            keys.extend(second);
        }
        let mut best: Option<(usize, u32)> = None;
        let mut tie = false;
        let mut seen: Vec<u32> = Vec::new();
        for k in &keys {
            for &id in self.index.get(k).into_iter().flatten() {
                if seen.contains(&id) {
                    continue;
                }
                seen.push(id);
                let Some(w) = self.words.get(id as usize) else {
                    continue;
                };
                let d = distance(word, w);
                if d == 0 || d > max || w.chars().next() != word.chars().next() {
                    continue;
                }
                match best {
                    Some((bd, _)) if d > bd => {}
                    Some((bd, _)) if d == bd => tie = true,
                    _ => {
                        best = Some((d, id));
                        tie = false;
                    }
                }
            }
        }
        match best {
            Some((_, id)) if !tie => self.words.get(id as usize).map(String::as_str),
            _ => None,
        }
    }
}

fn deletions(w: &str) -> Vec<String> {
    let chars: Vec<char> = w.chars().collect();
    (0..chars.len())
        .map(|i| {
            chars
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != i)
                .map(|(_, c)| *c)
                .collect()
        })
        .collect()
}

/// Damerau–Levenshtein distance (optimal string alignment).
pub fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
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
        let s = Speller::new(&["battery", "asbestos", "lead", "mercury", "expired"]);
        assert_eq!(s.correct("batteris"), Some("battery"));
        assert_eq!(s.correct("asbestoes"), Some("asbestos"));
        assert_eq!(s.correct("exipred"), Some("expired"));
        assert_eq!(s.correct("leed"), None);
        assert_eq!(s.correct("merkury"), Some("mercury"));
    }
}
