//! The changes [`super::lexicon::Lexicon::read`] makes to a description's
//! tokens, kept apart from them: most tokens are read as they are written,
//! so they stay where they are and only the stretches read otherwise (a
//! translation, a compound's parts, a correction) are written again.
//! Before, every token was moved into a new vector.
//!
//! **Invariant:** edits are recorded in the order of their tokens and never
//! overlap; `finish` gives the tokens a reading that pushed every kept
//! token and every new one in that order would have given.

use super::normalize::Token;

/// One edit: the tokens `from..to` read as `new[at..]` (up to the next
/// edit's `at`, or the end).
#[derive(Debug, Clone, Copy)]
struct Edit {
    from: usize,
    to: usize,
    at: usize,
}

/// The edits of one reading.
#[derive(Default)]
pub struct Edits<'k> {
    edits: Vec<Edit>,
    new: Vec<Token<'k>>,
}

impl<'k> Edits<'k> {
    /// Starts the edit that reads the tokens `from..to` (after every edit
    /// so far); push its tokens into the returned vector.
    pub fn replace(&mut self, from: usize, to: usize) -> &mut Vec<Token<'k>> {
        self.edits.push(Edit {
            from,
            to,
            at: self.new.len(),
        });
        &mut self.new
    }

    /// The new tokens of edit `k`.
    fn new_of(&self, k: usize) -> &[Token<'k>] {
        let (Some(e), end) = (
            self.edits.get(k),
            self.edits.get(k + 1).map_or(self.new.len(), |n| n.at),
        ) else {
            return &[];
        };
        self.new.get(e.at..end).unwrap_or_default()
    }

    /// Whether token `k` was read by an edit (not kept as written).
    pub fn edited(&self, k: usize) -> bool {
        self.edits
            .iter()
            .rev()
            .take_while(|e| e.to > k)
            .any(|e| e.from <= k)
    }

    /// Whether the last edit so far reads a token after `k`. When it does
    /// not, no token from `k` on is [`Self::edited`] (edits are in order):
    /// a cheap check before asking about tokens near `k`.
    pub fn reaches(&self, k: usize) -> bool {
        self.edits.last().is_some_and(|e| e.to > k)
    }

    /// The last token of the reading before token `i` (every token before
    /// `i` read): what a reading into one vector would have as its last.
    pub fn last_before<'a>(&'a self, tokens: &'a [Token<'k>], i: usize) -> Option<&'a Token<'k>> {
        let mut i = i;
        let mut k = self.edits.len();
        while k > 0 && self.edits[k - 1].to == i {
            if let Some(t) = self.new_of(k - 1).last() {
                return Some(t);
            }
            i = self.edits[k - 1].from;
            k -= 1;
        }
        tokens.get(i.checked_sub(1)?)
    }

    /// The tokens read: `tokens` with every edit applied (in place when
    /// every edit keeps the number of tokens).
    pub fn finish(self, mut tokens: Vec<Token<'k>>) -> Vec<Token<'k>> {
        if self.edits.is_empty() {
            return tokens;
        }
        let same_count = (0..self.edits.len()).all(|k| {
            let e = self.edits[k];
            self.new_of(k).len() == e.to - e.from
        });
        let mut new = self.new.into_iter();
        if same_count {
            for e in &self.edits {
                for (slot, t) in tokens[e.from..e.to].iter_mut().zip(new.by_ref()) {
                    *slot = t;
                }
            }
            return tokens;
        }
        let mut out = Vec::with_capacity(tokens.len() + new.len());
        let mut old = tokens.into_iter();
        let mut pos = 0;
        for (k, e) in self.edits.iter().enumerate() {
            out.extend(old.by_ref().take(e.from - pos));
            old.by_ref().take(e.to - e.from).for_each(drop);
            let len = self.edits.get(k + 1).map_or(new.len(), |n| n.at - e.at);
            out.extend(new.by_ref().take(len));
            pos = e.to;
        }
        out.extend(old);
        out
    }
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use super::super::normalize::{Origin, NO_BREAK};
    use super::*;

    fn token(w: &'static str) -> Token<'static> {
        Token {
            text: Cow::Borrowed(w),
            id: 0,
            break_before: NO_BREAK,
            span: (0, 0),
            origin: Origin::Written,
        }
    }

    fn words(tokens: &[Token]) -> Vec<String> {
        tokens.iter().map(|t| t.word().to_owned()).collect()
    }

    /// Reads `written` with `edits` (from, to, new words) into one vector,
    /// as the lexicon did, and with [`Edits`]; both answers.
    fn both(
        written: &[&'static str],
        edits: &[(usize, usize, &[&'static str])],
    ) -> [Vec<String>; 2] {
        let tokens: Vec<Token> = written.iter().map(|w| token(w)).collect();
        let mut one = Vec::new();
        let mut kept = Edits::default();
        let mut i = 0;
        let mut next = edits.iter().peekable();
        while i < tokens.len() {
            let before = kept.last_before(&tokens, i).map(|t| t.word().to_owned());
            assert_eq!(
                before,
                one.last().map(|t: &Token| t.word().to_owned()),
                "{i}"
            );
            for k in 0..=written.len() {
                if !kept.reaches(k) {
                    assert!((k..written.len()).all(|j| !kept.edited(j)), "{i} {k}");
                }
            }
            match next.next_if(|e| e.0 == i) {
                Some(&(from, to, new)) => {
                    one.extend(new.iter().map(|w| token(w)));
                    kept.replace(from, to).extend(new.iter().map(|w| token(w)));
                    assert!((from..to).all(|k| kept.edited(k)));
                    i = to;
                }
                None => {
                    one.push(tokens[i].clone());
                    assert!(!kept.edited(i), "{i}");
                    i += 1;
                }
            }
        }
        [words(&one), words(&kept.finish(tokens))]
    }

    #[test]
    fn edits_read_as_one_vector_did() {
        let w = ["a", "b", "c", "d", "e"];
        let cases: [&[(usize, usize, &[&str])]; 6] = [
            &[],
            &[(1, 2, &["x"])],
            &[(0, 1, &["x"]), (3, 5, &["y", "z"])],
            &[(1, 3, &["x"]), (3, 4, &["p", "q", "r"])],
            &[(0, 2, &[]), (2, 3, &[]), (4, 5, &["x", "y"])],
            &[(4, 5, &[])],
        ];
        for edits in cases {
            let [one, kept] = both(&w, edits);
            assert_eq!(one, kept, "{edits:?}");
        }
    }
}
