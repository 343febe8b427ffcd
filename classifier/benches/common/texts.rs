//! The benchmark descriptions, shared by the criterion bench and the
//! `probe` and `golden` examples (included with `#[path]`), so every speed
//! figure and the golden check classify the same texts.

/// A ~200-character trade description.
pub const SHORT: &str = "Spent lead-acid car batteries, whole and undrained, collected from \
garages and scrap yards, mixed with a few nickel-cadmium packs; shipped in acid-proof pallets for \
recovery of lead at a secondary smelter.";

/// A 5,000-character trade description: several realistic lots in a row.
pub fn long() -> String {
    const LOTS: [&str; 5] = [
        "Lot 1: baled OCC and mixed office paper, dry, sorted, for repulping. ",
        "Lot 2: HMS 1&2 steel scrap, cut to size, free of oil and sealed containers. ",
        "Lot 3: used lubricating oil from a vehicle workshop, PCB below 5 mg/kg (lab). ",
        "Lot 4: insulated copper cable offcuts, PVC sheathed, from building demolition. ",
        "Lot 5: spent caustic solution, pH 13, from an aluminium anodising line. ",
    ];
    let mut s = String::new();
    let mut i = 0;
    while s.chars().count() + 80 < 5000 {
        s.push_str(LOTS[i % LOTS.len()]);
        i += 1;
    }
    s
}
