//! Word roles in the six languages of the lexicon's full coverage
//! (English, German, French, Spanish, Italian, Dutch): origin never adds an
//! entry, a contaminant decides over the material it soils, packaging never
//! decides, absence removes a hazard; hazard words are never Green and
//! every precautionary answer carries `questions`.

use crate::common::{all_codes, classifier};
use classifier::ListType;

fn check_all(cases: &[&str], want: &str, list: ListType) {
    for text in cases {
        let r = classifier().classify(text);
        assert_eq!(r.best_code(), Some(want), "{text}: {:?}", all_codes(&r));
        assert_eq!(r.list_type, list, "{text}");
        assert_eq!(r.pic_required, list != ListType::Green, "{text}");
        assert_eq!(
            r.questions.is_empty(),
            !r.pic_required,
            "{text}: {:?}",
            r.questions
        );
    }
}

#[test]
fn an_origin_adds_no_entry_in_six_languages() {
    let cases = [
        "Copper scrap from a battery recycling plant",
        "Kupferschrott aus einer Batterierecyclinganlage",
        "Ferraille de cuivre provenant d'une usine de recyclage de batteries",
        "Chatarra de cobre procedente de una planta de reciclaje de baterías",
        "Rottami di rame provenienti da un impianto di riciclaggio di batterie",
        "Koperschroot afkomstig van een batterijrecyclingbedrijf",
    ];
    check_all(&cases, "B1010", ListType::Green);
    for text in cases {
        let r = classifier().classify(text);
        assert!(
            r.a_codes.is_empty(),
            "{text}: the origin added {:?}",
            r.a_codes
        );
    }
}

#[test]
fn an_object_from_an_origin_is_the_object_in_six_languages() {
    check_all(
        &[
            "Waste lead-acid batteries from cars",
            "Altbatterien (Bleiakkumulatoren) aus Autos",
            "Batteries au plomb usagées provenant de voitures",
            "Baterías de plomo ácido usadas de coches",
            "Batterie al piombo esauste provenienti da automobili",
            "Gebruikte loodaccu's uit auto's",
        ],
        "A1160",
        ListType::Amber,
    );
}

#[test]
fn a_contaminant_decides_over_the_soil_in_six_languages() {
    check_all(
        &[
            "Soil contaminated with mineral oil",
            "Mit Mineralöl verunreinigter Boden",
            "Terre contaminée par de l'huile minérale",
            "Suelo contaminado con aceite mineral",
            "Terreno contaminato da olio minerale",
            "Met minerale olie verontreinigde grond",
        ],
        "A3020",
        ListType::Amber,
    );
}

#[test]
fn a_container_never_decides_in_six_languages() {
    check_all(
        &[
            "Waste oil in drums",
            "Altöl in Fässern",
            "Huile usagée en fûts",
            "Aceite usado en bidones",
            "Olio usato in fusti",
            "Afgewerkte olie in vaten",
        ],
        "A3020",
        ListType::Amber,
    );
}

#[test]
fn a_container_that_held_a_hazardous_content_needs_pic_in_six_languages() {
    for text in [
        "Empty steel drums that contained solvents",
        "Leere Stahlfässer mit Lösemittelresten",
        "Fûts métalliques vides ayant contenu des solvants",
        "Bidones de acero vacíos que contenían disolventes",
        "Fusti di acciaio vuoti che contenevano solventi",
        "Lege stalen vaten die oplosmiddelen hebben bevat",
    ] {
        let r = classifier().classify(text);
        assert_eq!(r.list_type, ListType::Amber, "{text}");
        assert!(r.pic_required && !r.questions.is_empty(), "{text}");
        assert!(
            all_codes(&r)
                .iter()
                .any(|c| matches!(*c, "A4130" | "A3140")),
            "{text}: {:?}",
            all_codes(&r)
        );
    }
}

#[test]
fn absence_of_the_contaminant_keeps_the_metal_green_in_six_languages() {
    check_all(
        &[
            "Copper scrap, no residues",
            "Kupferschrott, ölfrei",
            "Ferraille de cuivre, sans huile",
            "Chatarra de cobre, sin aceite",
            "Rottami di rame, senza olio",
            "Koperschroot, olievrij",
        ],
        "B1010",
        ListType::Green,
    );
}

#[test]
fn a_hazard_word_beside_a_green_material_is_never_green_in_six_languages() {
    for (text, h) in [
        ("Copper scrap, corrosive", "H8"),
        ("Kupferschrott, ätzend", "H8"),
        ("Ferraille de cuivre, inflammable", "H3"),
        ("Chatarra de cobre, corrosiva", "H8"),
        ("Rottami di rame, infiammabili", "H3"),
        ("Koperschroot, bijtend", "H8"),
        (
            "Aluminium dross, reacts with water releasing flammable gas",
            "H4.3",
        ),
        ("Copper scrap, self-heating", "H4.2"),
    ] {
        let r = classifier().classify(text);
        assert_ne!(r.list_type, ListType::Green, "{text}: {:?}", r.b_codes);
        assert!(r.pic_required, "{text}");
        assert!(r.b_codes.is_empty(), "{text}: {:?}", r.b_codes);
        assert!(
            r.h_codes.iter().any(|c| c.code == h),
            "{text}: {:?}",
            r.h_codes
        );
        assert!(
            r.questions
                .iter()
                .any(|q| q.contains("Annex IX (Green) entry")),
            "{text}: {:?}",
            r.questions
        );
    }
}
