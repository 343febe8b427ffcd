//! The spelling corrector never replaces a word of a real dictionary, and
//! the README's examples keep their answers.

use classifier::{Classification, Classifier, WarningCode};
use fst::{IntoStreamer, Set, Streamer};
use proptest::prelude::*;

const WORDS: &[u8] = include_bytes!("../../data/dictionary_words.fst");

fn dictionary() -> Set<&'static [u8]> {
    Set::new(WORDS).expect("the embedded dictionary is a set")
}

/// Every `step`-th dictionary word.
fn sample(step: usize) -> Vec<String> {
    let set = dictionary();
    let mut stream = set.into_stream();
    let mut out = Vec::new();
    let mut n = 0usize;
    while let Some(w) = stream.next() {
        if n.is_multiple_of(step) {
            out.push(String::from_utf8_lossy(w).into_owned());
        }
        n += 1;
    }
    out
}

/// The words the answer says it corrected ("Read 'a' as 'b', 'c' as 'd'
/// (spelling); …"), as written.
fn corrected(r: &Classification) -> Vec<String> {
    let Some(w) = r
        .warnings
        .iter()
        .find(|w| w.starts_with("Read '") && w.contains("(spelling)"))
    else {
        return Vec::new();
    };
    let parts: Vec<&str> = w.split("' as '").collect();
    parts[..parts.len() - 1]
        .iter()
        .filter_map(|p| p.rsplit('\'').next())
        .map(str::to_lowercase)
        .collect()
}

fn assert_no_word_corrected(c: &Classifier, set: &Set<&'static [u8]>, text: &str) {
    let r = c.classify(text);
    for w in corrected(&r) {
        assert!(!set.contains(&w), "{text}: the word '{w}' was corrected");
    }
}

#[test]
fn valid_words_near_the_vocabulary_are_not_corrected() {
    let c = Classifier::bundled().expect("bundled");
    let set = dictionary();
    for text in [
        "Spent lead-acid car batteries, whole, from garages",
        "a tower of pallets, towed in, beech offcuts",
        "scarp and cooper from the bench, nothing else",
    ] {
        assert_no_word_corrected(&c, &set, text);
    }
    let r = c.classify("garages");
    assert!(!r.warning_codes.contains(&WarningCode::SpellingCorrected));
}

#[test]
fn misspellings_no_dictionary_knows_are_still_corrected() {
    let c = Classifier::bundled().expect("bundled");
    let r = c.classify("waste lead acid batteris");
    assert!(r.warning_codes.contains(&WarningCode::SpellingCorrected));
    assert_eq!(r.best_code(), Some("A1160"));
}

#[test]
fn readme_examples_keep_their_answers() {
    let c = Classifier::bundled().expect("bundled");
    for (text, want) in [
        (
            "Spent lead-acid car batteries, whole, from garages",
            "A1160",
        ),
        ("Baled OCC from supermarkets, sorted", "B3020"),
        ("Mixed household waste collected from homes", "Y46"),
    ] {
        let r = c.classify(text);
        assert_eq!(r.best_code(), Some(want), "{text}");
        assert!(
            !r.y_codes.iter().any(|y| y.code == "Y46") || want == "Y46",
            "{text}: {:?}",
            r.y_codes
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn no_correction_replaces_a_dictionary_word(picks in prop::collection::vec(0usize..6_000, 1..8)) {
        thread_local! {
            static WORDS_SAMPLE: Vec<String> = sample(1_000);
            static CLASSIFIER: Classifier = Classifier::bundled().expect("bundled");
        }
        let set = dictionary();
        let text = WORDS_SAMPLE.with(|s| {
            picks.iter().map(|&i| s[i % s.len()].as_str()).collect::<Vec<_>>().join(" ")
        });
        CLASSIFIER.with(|c| assert_no_word_corrected(c, &set, &format!("waste {text} scrap")));
    }
}

#[test]
fn polish_and_turkish_trade_terms_are_read() {
    let c = Classifier::bundled().expect("bundled");
    for (text, language) in [
        ("Zużyte akumulatory ołowiowe, złom", "Polish"),
        ("Atık akü hurdası, kurşun", "Turkish"),
    ] {
        let r = c.classify(text);
        assert_eq!(r.best_code(), Some("A1160"), "{text}");
        assert!(
            r.languages.iter().any(|l| l == language),
            "{text}: {:?}",
            r.languages
        );
    }
}
