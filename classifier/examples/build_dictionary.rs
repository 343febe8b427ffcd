//! Builds `domain/data/dictionary_words.fst`, the words of the supported
//! languages' spelling dictionaries (see `domain/data/DICTIONARY_SOURCES.md`),
//! from a word list with one `word<TAB>languages` line per word (the
//! languages as a bit set, see `domain/data/dictionary_words.py`), in byte
//! order: an `fst` map from each word to its languages.
//!
//! Usage: `cargo run --release -p classifier --example build_dictionary -- words.txt OUT.fst`

use std::io::BufRead;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let input = args
        .next()
        .ok_or("usage: build_dictionary words.txt OUT.fst")?;
    let output = args
        .next()
        .ok_or("usage: build_dictionary words.txt OUT.fst")?;
    let reader = std::io::BufReader::new(std::fs::File::open(input)?);
    let mut build = fst::MapBuilder::new(std::io::BufWriter::new(std::fs::File::create(&output)?))?;
    let mut n = 0usize;
    for line in reader.lines() {
        let line = line?;
        if line.is_empty() {
            continue;
        }
        let (word, langs) = line
            .split_once('\t')
            .ok_or_else(|| format!("no languages on the line {line:?}"))?;
        build.insert(word.as_bytes(), langs.parse::<u64>()?)?;
        n += 1;
    }
    build.finish()?;
    println!("{n} words written to {output}");
    Ok(())
}
