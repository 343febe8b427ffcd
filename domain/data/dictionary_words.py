"""Writes words.txt for `cargo run --release -p domain --example build_dictionary`
(see DICTIONARY_SOURCES.md): run in the directory holding the unmunch outputs
en_US.raw, de_DE.raw, es_ES.raw, nl.raw and pl_PL.raw."""
import unicodedata

words = set()


def add(lines):
    for w in lines:
        w = w.strip().split("/")[0].split("\t")[0].strip().lower()
        if 3 <= len(w) <= 40 and w.isalpha():
            words.add(unicodedata.normalize("NFC", w))


for lang in ["en_US", "de_DE", "es_ES", "nl"]:
    add(open(f"{lang}.raw", encoding="utf-8", errors="ignore"))
add(open("pl_PL.raw", encoding="iso-8859-2", errors="ignore"))
for lang in ["fr", "it_IT", "pt_PT", "tr_TR"]:
    f = open(f"/usr/share/hunspell/{lang}.dic", encoding="utf-8", errors="ignore")
    next(f)  # the word count
    add(f)
with open("words.txt", "w") as out:
    out.write("\n".join(sorted(words, key=lambda w: w.encode())) + "\n")
