#!/usr/bin/env python3
"""Generator for the frozen BLIND evaluation set blind_2026_12.json.

Written once, independently of the classifier, from the Basel Convention
annex texts (Annexes I, II, III, VIII, IX) and the EU List of Waste only.
The cases are held below as Python data; running this script writes
blind_2026_12.json next to it, deterministically (same bytes every run).

DO NOT TUNE ON THIS SET. Score it once, at the end.
"""
import json
import os

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "blind_2026_12.json")

# Deleted or never-adopted entries: never a right answer.
BASE_FORBID = ["A1180", "B1110", "B4030", "B3010", "B3025"]

ABOUT = (
    "blind_2026_12: frozen, BLIND evaluation set of 120 waste trade descriptions "
    "(shipping documents, offers, tenders, lab reports) with the Basel classification "
    "an expert gives from the annex texts alone (Annexes I, II, III, VIII, IX; EU List of Waste "
    "for printed LoW codes). Written independently of the classifier, its data and its tests. "
    "list_type: Green = Annex IX (List B), Amber = Annex VIII (List A), Y-list = Annex I/II only. "
    "Where two list types are given, either is accepted. Score once, at the end; never tune on it."
)

CASES = []


def case(cid, description, list_type, top_any, codes_any, forbid, why, tags,
         origin=None, destination=None, y_any=None, h_any=None, un_any=None):
    if isinstance(list_type, str):
        list_type = [list_type]
    expect = {
        "list_type": list_type,
        "pic_required": list_type != ["Green"],
        "top_any": top_any,
        "codes_any": codes_any,
    }
    if y_any:
        expect["y_any"] = y_any
    if h_any:
        expect["h_any"] = h_any
    if un_any:
        expect["un_any"] = un_any
    fb = list(BASE_FORBID)
    for c in forbid:
        if c not in fb:
            fb.append(c)
    expect["forbid"] = fb
    c = {"id": cid, "description": description}
    if origin:
        c["origin"] = origin
    if destination:
        c["destination"] = destination
    c["expect"] = expect
    c["why"] = why
    c["tags"] = tags
    CASES.append(c)


# ---------------------------------------------------------------- batteries
case("b001",
     "Altbatterien: Blei-Säure-Starterbatterien (Pkw/Lkw), unzerlegt, mit Säure gefüllt, auf Paletten "
     "gestapelt und stretchfoliert, ca. 22 t, AVV 16 06 01*, UN 2794 BATTERIEN, NASS, GEFÜLLT MIT SÄURE, 8. "
     "Lieferung DAP Recyclinganlage.",
     "Amber", ["A1160"], ["A1160", "Y31", "Y34"], ["B1090", "B1020"],
     "A1160 'Waste lead-acid batteries, whole or crushed'; lead Y31 and sulphuric acid Y34, class 8 corrosive (H8). "
     "B1020 lead scrap is 'excluding lead-acid batteries'; B1090 excludes batteries 'made with lead'.",
     ["lang:de", "un-number", "ewc-code", "packaging"], origin="DE", destination="PL",
     y_any=["Y31"], h_any=["H8"], un_any=["2794"])

case("b002",
     "OFFER: 5 x 20' containers scrap drained lead batteries, ISRI 'RAINS', whole and intact, electrolyte "
     "drained, HS 8549.11, CIF Nhava Sheva, payment 90% against BL.",
     "Amber", ["A1160"], ["A1160", "Y31"], ["B1090", "B1020"],
     "ISRI Rains = drained whole lead-acid batteries: still 'Waste lead-acid batteries, whole or crushed' (A1160); "
     "draining the acid does not remove the lead (Y31). Not B1020 ('excluding lead-acid batteries').",
     ["lang:en", "trade-name", "hs-code", "packaging"], origin="US", destination="IN", y_any=["Y31"])

case("b003",
     "Relaves de flotación de mineral sulfurado de cobre, generadores de ácido (drenaje ácido), con pirita y "
     "arsénico 0,6 %, LER 01 03 04*, a granel.",
     "Amber", ["A1030"], ["A1030", "Y24"], ["B2010"],
     "A1030 'Wastes having as constituents or contaminants ... Arsenic; arsenic compounds'. B2010 mining wastes "
     "covers only the listed non-dispersible minerals (graphite, slate, mica, feldspar...), not sulphide tailings; "
     "01 03 04* is hazardous.",
     ["lang:es", "ewc-code", "constituents"], origin="PE", y_any=["Y24"])

case("b004",
     "Accumulateurs nickel-cadmium usagés (outillage électroportatif et éclairage de secours), triés, "
     "conditionnés en fûts métalliques de 200 L sur palettes, code déchet 16 06 02*.",
     "Amber", ["A1170"], ["A1170", "Y26"], ["B1090", "A1160"],
     "A1170 'Waste batteries not specified on list B containing Annex I constituents to an extent to render them "
     "hazardous' - cadmium (Y26). B1090 excludes batteries 'made with ... cadmium'. Drums are packaging only.",
     ["lang:fr", "ewc-code", "packaging", "constituents"], origin="FR", destination="DE", y_any=["Y26"])

case("b005",
     "Mixed portable batteries from municipal collection boxes, UNSORTED: alkaline, zinc-carbon, NiMH, Li-ion, "
     "button cells and some NiCd; LoW 20 01 33*; 40 x 60 L UN-approved plastic drums.",
     "Amber", ["A1170"], ["A1170", "Y26", "Y29"], ["B1090"],
     "A1170 'Unsorted waste batteries excluding mixtures of only list B batteries'; NiCd and button cells mean "
     "the mixture is not only list B batteries.",
     ["lang:en", "ewc-code", "packaging", "origin"], origin="IE", destination="DE")

case("b006",
     "Defective and damaged lithium-ion battery packs (e-bike and power tool), swollen cells, risk of thermal "
     "runaway, UN 3480, packed under special provision 376 in steel drums with vermiculite.",
     "Amber", ["A1170"], ["A1170", "Y42", "Y32"], ["B1090", "A1160", "Y26", "Y29", "Y31"],
     "Damaged cells are not 'Waste batteries conforming to a specification' (B1090). Li-ion cells are not made "
     "with lead, cadmium or mercury, so Y31/Y26/Y29 are wrong; the flammable organic carbonate electrolyte (Y42) "
     "and fluoride conducting salt (Y32) render them hazardous: A1170 second sentence.",
     ["lang:en", "constituents", "un-number", "hazard-word", "packaging"], origin="NL", destination="BE",
     un_any=["3480"])

case("b007",
     "Schwarzmasse („Black Mass“) aus der mechanischen Aufbereitung von Lithium-Ionen-Batterien (NMC/LFP): "
     "Graphit, Ni-, Co-, Mn- und Li-Oxide, Restelektrolyt, Fluorid aus dem Leitsalz LiPF6; feinkörnig, "
     "staubend; Big Bags à 1 t, 3 x 20'-Container.",
     "Amber", ["A1170"], ["A1170", "Y32", "Y42"], ["B1090", "B1010", "A1160", "Y26", "Y29", "Y31"],
     "Crushed waste batteries not specified on list B, containing Annex I constituents (inorganic fluorine "
     "compounds Y32, organic solvent electrolyte Y42) to an extent to render them hazardous: A1170. Not B1090 "
     "(not batteries 'conforming to a specification'); no lead, cadmium or mercury chemistry. Big bags are packaging.",
     ["lang:de", "trade-name", "constituents", "packaging"], origin="DE", destination="KR")

case("b008",
     "Spent alkaline (Zn/MnO2) AA/AAA/C/D cells sorted out on an optical battery sorting line, mercury-free "
     "(Hg < 5 ppm), no NiCd, no lead, no lithium cells; LoW 16 06 04; 1 m3 boxes.",
     "Green", ["B1090"], ["B1090"], ["A1170", "A1160", "Y29"],
     "B1090 'Waste batteries conforming to a specification, excluding those made with lead, cadmium or mercury': "
     "sorted alkaline cells, Hg-free. Sorted, so not 'Unsorted waste batteries' (A1170).",
     ["lang:en", "negation", "threshold", "ewc-code", "packaging"], origin="BE", destination="FR")

# ---------------------------------------------------------------- e-waste, glass, lamps
case("b009",
     "废阴极射线管（CRT）锥玻璃，含氧化铅，已与屏玻璃分离并破碎，吨袋包装，约18吨。",
     "Amber", ["A2010", "A1181"], ["A2010", "A1181", "Y31"], ["B2020"],
     "A2010 'Glass waste from cathode-ray tubes and other activated glasses' (funnel glass with lead oxide, Y31); "
     "B2020 cullet expressly 'except for glass from cathode-ray tubes'.",
     ["lang:zh", "packaging", "constituents"], origin="MY", y_any=["Y31"])

case("b010",
     "Clear flint container-glass cullet (bottles and jars), colour-sorted, furnace-ready, ceramics/stones/"
     "porcelain < 20 g/t, no CRT or lamp glass, LoW 19 12 05, bulk tipper.",
     "Green", ["B2020"], ["B2020"], ["A2010"],
     "B2020 'Glass waste in non-dispersible form: Cullet and other waste and scrap of glass except for glass from "
     "cathode-ray tubes and other activated glasses'.",
     ["lang:en", "negation", "threshold", "ewc-code"], origin="GB", destination="NL")

case("b011",
     "Lampade fluorescenti esauste (tubi lineari e lampade compatte) contenenti mercurio, EER 20 01 21*, in "
     "contenitori dedicati da 1,5 m³ provenienti da centri di raccolta comunali.",
     "Amber", ["A1181", "A1030"], ["A1181", "A1030", "Y29"], ["B2020", "Y49"],
     "Mercury-containing lamps: electrical and electronic waste exhibiting Annex III characteristics (A1181) / "
     "'Wastes having as constituents ... Mercury' (A1030), Y29. Not Y49 (hazardous), not B2020.",
     ["lang:it", "ewc-code", "packaging"], origin="IT", destination="DE", y_any=["Y29"])

case("b012",
     "Mixed circiut boards (low/medium grade) pulled from desktop PCs and TVs, populated, lead-tin solder, "
     "brominated FR-4 laminate, some electrolytic capacitors attached. HS 8549. 2 x 40' HC.",
     "Amber", ["A1181"], ["A1181", "Y31", "Y45"], ["B1010"],
     "E-waste components containing lead (Y31) and organohalogen compounds (Y45): 'Electrical and electronic "
     "waste' A1181. B1110 is deleted; not metal scrap B1010.",
     ["lang:en", "misspelt", "hs-code", "constituents"], origin="AU", destination="BE")

case("b013",
     "Afgedankte koelkasten en diepvriezers uit huishoudens, met CFK-koelmiddel (R12) in het circuit en "
     "PUR-isolatie geblazen met CFK-11, compressorolie niet afgetapt, EURAL 20 01 23*.",
     "Amber", ["A1181"], ["A1181", "Y45", "Y41", "Y8"], ["Y49", "B1010"],
     "E-waste containing organohalogen compounds (CFCs, Y45) and oil: hazardous e-waste A1181 (20 01 23* starred); "
     "therefore not Y49 and not ferrous scrap.",
     ["lang:nl", "ewc-code", "constituents"], origin="NL", destination="DE", y_any=["Y45", "Y41"])

case("b014",
     "Used large household appliances (washing machines, tumble dryers, dishwashers) from retailer take-back; "
     "no refrigerants, no PCB capacitors; LoW 20 01 36; loose in 40' containers.",
     "Y-list", ["Y49"], ["Y49", "Y46"], ["B1010"],
     "Annex II Y49 'Electrical and electronic waste' not covered by A1181 (nothing hazardous signalled, 20 01 36 "
     "non-hazardous). B1110 deleted; EEE is not B1010 metal scrap.",
     ["lang:en", "negation", "ewc-code"], origin="FR", destination="ES")

case("b015",
     "Zużyty drobny sprzęt AGD (czajniki, tostery, suszarki do włosów, żelazka) z selektywnej zbiórki, bez "
     "baterii, kod 20 01 36, luzem w kontenerze.",
     "Y-list", ["Y49"], ["Y49", "Y46"], ["B1010"],
     "Small household appliances, no hazardous components signalled (20 01 36): Y49 'Electrical and electronic "
     "waste'; never Green since B1110 was deleted.",
     ["lang:pl", "ewc-code", "negation"], origin="PL", destination="DE")

case("b016",
     "Tangle of old Christmas fairy lights (LED light strings with plugs and small transformers), no batteries, "
     "from a household recycling centre, approx. 6 t in a walking-floor trailer.",
     "Y-list", ["Y49"], ["Y49", "Y46"], ["B1115", "A1030"],
     "LED light strings are electrical and electronic equipment, not 'waste metal cables' (B1115); LEDs contain "
     "no mercury (not A1030). Non-hazardous e-waste: Y49.",
     ["lang:en", "unknown-word", "origin"], origin="GB", destination="NL")

case("b017",
     "Luminarias fluorescentes desmontadas de oficinas, sin tubos y sin condensadores, carcasas de chapa de acero "
     "y aluminio con balastos electrónicos, LER 16 02 14.",
     "Y-list", ["Y49"], ["Y49"], ["B1010", "A1030"],
     "Luminaires are EEE; lamps and capacitors removed, 16 02 14 non-hazardous: Y49. Not B1010 metal scrap.",
     ["lang:es", "negation", "ewc-code"], origin="ES", destination="PT")

case("b018",
     "Black WEEE plastics (ABS/HIPS/PC-ABS regrind) from shredding of small domestic appliances and monitors; "
     "XRF: Br 2.1 %, Sb 0.8 % (PBDE-type flame retardants). Big bags.",
     "Amber", ["A1181", "A3210", "A3180"], ["A1181", "A3210", "A3180", "Y45", "Y27"], ["B3011"],
     "Fraction from processing e-waste with brominated flame retardants (organohalogen Y45, antimony Y27): "
     "A1181 / A3210 'Plastic waste ... containing or contaminated with Annex I constituents, to an extent that it "
     "exhibits an Annex III characteristic'; polybrominated analogues >= 50 mg/kg also fit A3180. Not B3011.",
     ["lang:en", "constituents", "packaging"], origin="DE", destination="AT")

# ---------------------------------------------------------------- metal scrap
case("b019",
     "Bare bright copper wire, ISRI 'Barley', unalloyed, uncoated, unburnt, no insulation, no solder, no brass, "
     "min. 99 % Cu, HS 7404.00, 25 t per 20' container, CIF Busan.",
     "Green", ["B1010"], ["B1010"], ["A1181", "B1115", "A1190", "B1070"],
     "B1010 'Metal and metal-alloy wastes in metallic, non-dispersible form: Copper scrap'. No insulation, so "
     "not a cable entry.",
     ["lang:en", "trade-name", "hs-code", "negation"], origin="US", destination="KR")

case("b020",
     "ZORBA 95/3 - shredded mixed non-ferrous metal from automobile shredder, eddy-current separated, approx. "
     "70 % aluminium, balance Cu, brass, Zn, stainless; max. 3 % free iron; no fluff, no rubber, no liquids; "
     "HS 7602.",
     "Green", ["B1050", "B1010"], ["B1050", "B1010"], ["A3120"],
     "B1050 'Mixed non-ferrous metal, heavy fraction scrap, not containing Annex I materials in concentrations "
     "sufficient to exhibit Annex III characteristics'. No fluff, so not A3120 'Fluff - light fraction from shredding'.",
     ["lang:en", "trade-name", "hs-code", "negation"], origin="US", destination="IN")

case("b021",
     "Stahlschrott Sorte E3 (Altschrott schwer, ≥ 6 mm) nach Europäischer Stahlschrottsortenliste, entspricht "
     "HMS 1&2 80:20, frei von Hohlkörpern, Kunststoffen und Öl, Strahlenmessung ohne Befund, AVV 17 04 05, "
     "FOB Hamburg, Schüttgut.",
     "Green", ["B1010"], ["B1010"], ["A1010", "B1250"],
     "B1010 'Iron and steel scrap' in metallic, non-dispersible form; clean heavy melting scrap.",
     ["lang:de", "trade-name", "ewc-code", "negation"], origin="DE", destination="TR")

case("b022",
     "Tournures (copeaux) d'aluminium d'usinage, essorées par centrifugation, teneur résiduelle en huile de coupe "
     "< 1 %, sans liquide libre, code 12 01 03, en bennes.",
     "Green", ["B1010"], ["B1010"], ["A4060", "A3020"],
     "B1010 'Aluminium scrap' in metallic, non-dispersible form; centrifuged, no free liquid, oil < 1 %, so no "
     "emulsion/oil waste (A4060/A3020) is being shipped.",
     ["lang:fr", "negation", "threshold", "ewc-code"], origin="FR", destination="BE")

case("b023",
     "Cast-iron and steel turnings straight from the machining line, dripping wet with water-miscible cutting "
     "emulsion, approx. 12 % liquid by weight, free liquid collects in the container sump; no analysis.",
     "Amber", ["A4060"], ["A4060", "Y9"], [],
     "The free cutting emulsion is 'Waste oils/water, hydrocarbons/water mixtures, emulsions' (A4060, Y9); B1010 "
     "cannot be positively established while the scrap carries free emulsion, so precautionary Amber.",
     ["lang:en", "origin", "threshold"], origin="DE", destination="CZ", y_any=["Y9"])

case("b024",
     "Sucata de latão amarelo (ISRI 'Honey'): torneiras, válvulas e conexões de latão, sem cromagem, sem ferro, "
     "sem plástico, HS 7404.00, contentor de 20 pés, FOB Santos.",
     "Green", ["B1010"], ["B1010"], ["A1010"],
     "B1010 'Copper scrap' (copper alloys) in metallic, non-dispersible form.",
     ["lang:pt", "trade-name", "hs-code", "negation"], origin="BR", destination="IN")

case("b025",
     "Platinum-rhodium alloy scrap (PtRh10): worn spinning bushings and tip-plate offcuts from a glass-fibre "
     "plant, solid metal pieces, assay certificate attached.",
     "Green", ["B1010"], ["B1010"], ["A1181"],
     "B1010 'Precious metals (gold, silver, the platinum group, but not mercury)' in metallic, non-dispersible form. "
     "The glass-fibre plant origin does not change the material.",
     ["lang:en", "origin"], origin="US", destination="DE")

case("b026",
     "Veicoli fuori uso NON bonificati: ancora presenti batteria al piombo, olio motore, carburante, liquido "
     "freni e airbag non esplosi; EER 16 01 04*; n. 40 carcasse su bisarca.",
     "Amber", ["A1160", "A3020", "A4060"], ["A1160", "A3020", "A4060", "A4080", "Y31", "Y8", "Y9"],
     ["B1250", "B1010"],
     "B1250 only covers end-of-life vehicles 'containing neither liquids nor other hazardous components'. These "
     "still hold a lead-acid battery (A1160), mineral oils (A3020/A4060) and undeployed airbags: Amber.",
     ["lang:it", "ewc-code", "negation"], origin="IT", destination="SI")

case("b027",
     "Clean lead sheet and flashing scrap from roof renovation, bulk finished form, no battery plates, no cable "
     "sheathing, no paint; HS 7802.00.",
     "Green", ["B1020"], ["B1020"], ["A1010", "A1020", "A1160"],
     "B1020 'Clean, uncontaminated metal scrap ... in bulk finished form (sheet, plate ...) of: Lead scrap (but "
     "excluding lead-acid batteries)'; A1010 excludes 'such wastes specifically listed on list B'.",
     ["lang:en", "hs-code", "negation"], origin="GB", destination="BE")

case("b028",
     "Złom kabli w izolacji z PVC z powłoką ołowianą i taśmą nasyconą smołą węglową, z demontażu sieci "
     "kablowej, kod 17 04 10*.",
     "Amber", ["A1190"], ["A1190", "Y31", "Y11"], ["B1115"],
     "A1190 'Waste metal cables coated or insulated with plastics containing or contaminated with coal tar, PCB, "
     "lead ...'; 17 04 10* starred. Not B1115, which covers cables 'not included in list A A1190'.",
     ["lang:pl", "ewc-code", "constituents"], origin="PL", destination="DE")

case("b029",
     "PVC-insulated copper cable scrap (NYM / H07 installation cables), 38-45 % Cu; no oil-filled, lead-sheathed "
     "or tar-coated cables; for mechanical granulation only (no burning); LoW 17 04 11.",
     "Green", ["B1115"], ["B1115"], ["A1190", "A1090", "A1181"],
     "B1115 'Waste metal cables coated or insulated with plastics, not included in list A A1190, excluding those "
     "destined for ... uncontrolled thermal processes, such as open-burning'; mechanical granulation.",
     ["lang:en", "negation", "mirror", "ewc-code"], origin="FR", destination="DE")

case("b030",
     "İzoleli bakır kabloların yakılmasından kalan kül (bakır külü), toz halinde, %35 Cu, kurşun içerir, big "
     "bag ambalajda.",
     "Amber", ["A1090"], ["A1090", "A1020", "Y22", "Y31"], ["B1070", "B1115"],
     "A1090 'Ashes from the incineration of insulated copper wire'; lead content excludes B1070 ('unless they "
     "contain Annex I constituents').",
     ["lang:tr", "packaging", "constituents"], origin="TR")

case("b031",
     "Decommissioned hydro-power generator: stator core with copper windings and rotor poles, from power-station "
     "refurbishment; bearing and insulating oil drained, wipe tests PCB not detected (< 2 mg/kg); cut to "
     "furnace size.",
     "Green", ["B1040", "B1010"], ["B1040", "B1010"], ["A3180", "A1181", "Y10"],
     "B1040 'Scrap assemblies from electrical power generation not contaminated with lubricating oil, PCB or PCT "
     "to an extent to render them hazardous'; oil drained, PCB far below 50 mg/kg.",
     ["lang:en", "origin", "negation", "threshold"], origin="NO", destination="SE")

case("b032",
     "14 pole-mounted distribution transfomers, oil-filled, undrained; oil analysis 320 mg/kg PCB (Aroclor 1260); "
     "units labelled 'PCB contaminted'.",
     "Amber", ["A3180"], ["A3180", "A1181", "Y10"], ["B1040", "B1010"],
     "A3180 '... contaminated with polychlorinated biphenyl (PCB) ... at a concentration level of 50 mg/kg or "
     "more': 320 mg/kg. Y10.",
     ["lang:en", "threshold", "misspelt"], origin="CA", destination="US", y_any=["Y10"])

case("b033",
     "Aceite dieléctrico usado procedente del cambio de aceite de transformadores, PCB < 2 mg/kg (no detectado), "
     "LER 13 03 07*, en cisterna de 24 m³.",
     "Amber", ["A3020", "A3040"], ["A3020", "A3040", "Y8"], ["A3180", "Y10", "B3065"],
     "PCB-free, but still 'Waste mineral oils unfit for their originally intended use' (A3020, Y8) / heat transfer "
     "fluid (A3040). Below the 50 mg/kg A3180 threshold, so not A3180/Y10.",
     ["lang:es", "negation", "threshold", "ewc-code", "former-use"], origin="ES", destination="FR", y_any=["Y8"])

case("b034",
     "Small capacitors containing askarel (PCB) removed from fluorescent light fittings, some leaking, packed in "
     "UN-approved steel drums with absorbent, UN 2315.",
     "Amber", ["A3180", "A1181"], ["A3180", "A1181", "Y10"], ["B1040", "Y49"],
     "A3180 'Wastes, substances and articles containing, consisting of or contaminated with polychlorinated "
     "biphenyl (PCB)'; PCB capacitors are hazardous e-waste components (A1181). Y10.",
     ["lang:en", "un-number", "packaging"], origin="BE", destination="FR", y_any=["Y10"], un_any=["2315"])

# ---------------------------------------------------------------- oils, emulsions, solvents
case("b035",
     "Used engine and gear oils collected from garages, water < 5 %, sediment < 2 %, no chlorinated solvents "
     "added, LoW 13 02 05*, bulk in ISO tank containers, for re-refining.",
     "Amber", ["A3020"], ["A3020", "Y8"], ["B3065"],
     "A3020 'Waste mineral oils unfit for their originally intended use', Y8. The ISO tank is packaging.",
     ["lang:en", "ewc-code", "packaging", "negation"], origin="NL", destination="DE", y_any=["Y8"])

case("b036",
     "Aparas e retalhos de couro curtido ao crómio (wet-blue), análise Cr(VI) 18 mg/kg (detetado), em fardos.",
     "Amber", ["A3100"], ["A3100", "Y21"], ["B3090"],
     "A3100 'Waste paring and other waste of leather ... containing hexavalent chromium compounds or biocides'; "
     "Cr(VI) detected, so B3090 ('not containing hexavalent chromium compounds') is excluded.",
     ["lang:pt", "threshold", "packaging"], origin="PT", destination="ES", y_any=["Y21"])

case("b037",
     "Verbrauchte Kühlschmierstoffemulsion (Bohr- und Schleifemulsion), halogenfrei, Ölanteil ca. 4 %, "
     "AVV 12 01 09*, Abholung per Saugwagen.",
     "Amber", ["A4060"], ["A4060", "Y9"], ["B2120"],
     "A4060 'Waste oils/water, hydrocarbons/water mixtures, emulsions', Y9.",
     ["lang:de", "ewc-code"], origin="DE", destination="NL", y_any=["Y9"])

case("b038",
     "Used cooking oil (UCO) from restaurants and a hospital kitchen, filtered, moisture < 1 %, FFA < 5 %, no "
     "mineral oil, for biodiesel (ISCC), 24 t flexitank.",
     "Green", ["B3065"], ["B3065"], ["A3020", "A4060", "A4020", "Y8", "Y9"],
     "B3065 'Waste edible fats and oils of animal or vegetable origin (e.g., frying oils), provided they do not "
     "exhibit an Annex III characteristic'. A hospital kitchen is not clinical waste.",
     ["lang:en", "origin", "packaging", "negation"], origin="GB", destination="NL")

case("b039",
     "Hóa chất thải từ phòng thí nghiệm của trường đại học: nhiều lọ nhỏ bị mất nhãn, không xác định được "
     "thành phần, chưa có kết quả phân tích.",
     "Amber", ["A4150"], ["A4150", "Y14"], [],
     "A4150 'Waste chemical substances arising from research and development or teaching activities which are "
     "not identified and/or are new', Y14.",
     ["lang:vi", "origin"], origin="VN", y_any=["Y14"])

case("b040",
     "Waste heat-transfer fluid (synthetic, diphenyl/diphenyl-oxide type) drained from a polymer plant's "
     "thermal-oil heating loop, darkened and cracked, in IBCs.",
     "Amber", ["A3040"], ["A3040", "Y40"], ["B3065", "B3130"],
     "A3040 'Waste thermal (heat transfer) fluids'. Diphenyl oxide is an ether (Y40); B3130 is only for polymer "
     "ethers and non-hazardous monomer ethers, not a spent thermal fluid.",
     ["lang:en", "packaging", "origin"], origin="BE", destination="DE")

case("b041",
     "Solvants usagés non halogénés (acétone, xylène, acétate de butyle) issus du nettoyage des pistolets de la "
     "cabine de peinture, chargés en résidus de peinture ; liquide inflammable, UN 1993, fûts de 200 L, code "
     "14 06 03*.",
     "Amber", ["A3140", "A4070"], ["A3140", "A4070", "Y42", "Y6", "Y12"], ["A3150", "Y41"],
     "A3140 'Waste non-halogenated organic solvents' (Y42); from use of paints also A4070 (Y12). Flammable liquid "
     "(H3). No halogenated solvent named.",
     ["lang:fr", "hazard-word", "un-number", "packaging", "origin", "ewc-code"], origin="FR", destination="BE",
     y_any=["Y42"], h_any=["H3"], un_any=["1993"])

case("b042",
     "Percloroetilene esausto da lavaggio a secco (lavanderie), con residui di distillazione, EER 14 06 02*, in "
     "fusti metallici.",
     "Amber", ["A3150", "A3160"], ["A3150", "A3160", "Y41"], ["A3140"],
     "A3150 'Waste halogenated organic solvents', Y41 (tetrachloroethylene).",
     ["lang:it", "ewc-code", "origin", "packaging"], origin="IT", destination="DE", y_any=["Y41"])

case("b043",
     "Non-aqueous still bottoms from a solvent recovery plant (distillation residues, mixed halogenated and "
     "non-halogenated), pasty, LoW 07 01 07*, steel drums.",
     "Amber", ["A3160"], ["A3160", "Y6", "Y41", "Y42"], [],
     "A3160 'Waste halogenated or unhalogenated non-aqueous distillation residues arising from organic solvent "
     "recovery operations'.",
     ["lang:en", "ewc-code", "packaging"], origin="DE", destination="BE")

case("b044",
     "Gebruikte katalysator uit een raffinaderij; procesunit niet vermeld, geen analyse en geen "
     "veiligheidsinformatieblad beschikbaar; korrels in stalen vaten.",
     "Amber", ["A2030"], ["A2030"], ["B1120", "B1130"],
     "Green cannot be positively established: B1120/B1130 need the metals and the 'cleaned' state to be shown. "
     "Precautionary A2030 'Waste catalysts but excluding such wastes specified on list B'.",
     ["lang:nl", "origin", "packaging"], origin="NL", destination="BE")

case("b045",
     "Expired water-based acrylic (latex) wall paint in 10 L plastic tins, unopened; no organic solvents, no "
     "heavy-metal pigments, in-can preservative below classification limits; LoW 08 01 12.",
     "Green", ["B4010"], ["B4010"], ["A4070"],
     "B4010 'Wastes consisting mainly of water-based/latex paints ... not containing organic solvents, heavy "
     "metals or biocides to an extent to render them hazardous'; non-hazardous mirror entry 08 01 12.",
     ["lang:en", "negation", "packaging", "ewc-code", "mirror"], origin="NL", destination="BE")

case("b046",
     "Bakelite: sprues and rejects of fully cured phenol-formaldehyde moulding compound, clean, granulated.",
     "Green", ["B3011"], ["B3011"], ["A3050", "A3070", "Y48"],
     "B3011 plastic waste of one cured resin or condensation product, almost free from contamination. Cured, "
     "so not A3070 (phenols 'in the form of liquids or sludges') nor A3050.",
     ["lang:en", "trade-name"], origin="DE", destination="PL")

case("b047",
     "Off-spec two-component epoxy system: liquid bisphenol-A epoxy resin and amine hardener, partly reacted, in "
     "original 20 kg pails; hardener corrosive (Skin Corr. 1B).",
     "Amber", ["A3050", "A4140"], ["A3050", "A4140", "Y13"], ["B4020", "B3011"],
     "A3050 'Wastes from production, formulation and use of resins ... glues/adhesives' (Y13); uncured and "
     "corrosive (H8), so not B4020 nor cured-resin B3011.",
     ["lang:en", "hazard-word", "packaging"], origin="GB", destination="NL", y_any=["Y13"], h_any=["H8"])

case("b048",
     "Adhesivo vinílico en base agua (cola blanca de acetato de polivinilo) caducado, sin disolventes, en "
     "garrafas de 25 kg, LER 08 04 10.",
     "Green", ["B4020"], ["B4020"], ["A3050"],
     "B4020 '... glues/adhesives ... free of solvents ... e.g., water-based'; non-hazardous mirror 08 04 10.",
     ["lang:es", "mirror", "ewc-code", "packaging", "negation"], origin="ES", destination="FR")

# ---------------------------------------------------------------- acids, baths, sludges
case("b049",
     "Altbeize (salzsaure Beizlösung) aus einer Feuerverzinkerei, Fe 110 g/l, Zn 35 g/l, freie HCl 40 g/l, "
     "ätzend, AVV 11 01 05*, Tankwagen.",
     "Amber", ["A1060"], ["A1060", "A4090", "Y34", "Y17", "Y23"], ["B2120"],
     "A1060 'Waste liquors from the pickling of metals'; acidic (Y34), corrosive H8.",
     ["lang:de", "hazard-word", "ewc-code"], origin="DE", destination="NL", y_any=["Y34"], h_any=["H8"])

case("b050",
     "Spent alkaline ammoniacal etchant from printed-circuit-board manufacture, Cu 140 g/L, in 1,000 L IBCs.",
     "Amber", ["A1130"], ["A1130", "A4090", "Y22", "Y35", "Y17"], ["B2120"],
     "A1130 'Spent etching solutions containing dissolved copper', Y22.",
     ["lang:en", "origin", "packaging"], origin="DE", destination="SE", y_any=["Y22"])

case("b051",
     "Lamas galvânicas (hidróxidos de níquel, zinco e crómio) do filtro-prensa da linha de galvanoplastia, "
     "humidade 65 %, em big bags.",
     "Amber", ["A1050"], ["A1050", "Y17", "Y23"], [],
     "A1050 'Galvanic sludges'; Y17 surface treatment of metals.",
     ["lang:pt", "packaging"], origin="PT", destination="ES", y_any=["Y17"])

case("b052",
     "Spent hard-chrome plating bath: chromic acid solution, CrO3 approx. 250 g/L with sulphate catalyst; "
     "corrosive, oxidising and toxic.",
     "Amber", ["A1040", "A4090"], ["A1040", "A4090", "Y21", "Y17", "Y34"], ["B2120"],
     "A1040 'Wastes having as constituents ... Hexavalent chromium compounds' (Y21); acidic solution A4090.",
     ["lang:en", "hazard-word"], origin="IT", destination="DE",
     y_any=["Y21"], h_any=["H8", "H5.1", "H6.1", "H11"])

case("b053",
     "Kyanidové kalicí soli z tepelného zpracování kovů (obsahují kyanid sodný a draselný), katalogové číslo "
     "11 03 01*, ocelové sudy.",
     "Amber", ["A4050"], ["A4050", "Y7", "Y33"], ["B1140"],
     "A4050 'Wastes that contain ... Inorganic cyanides'; Y7 'Wastes from heat treatment and tempering operations "
     "containing cyanides', Y33. Not precious-metal residues (B1140).",
     ["lang:cs", "ewc-code", "packaging"], origin="CZ", destination="DE",
     y_any=["Y33", "Y7"], h_any=["H6.1"])

# ---------------------------------------------------------------- dusts, ashes, slags, drosses
case("b054",
     "EAF dust (electric arc furnace baghouse dust) from a carbon-steel mini-mill: Zn 28 %, Pb 2.4 %, Cd 0.04 %, "
     "Cl 3 %; LoW 10 02 07*; UN 3077; 1.2 t big bags; for Waelz kiln zinc recovery.",
     "Amber", ["A1020", "A4100", "A1080"], ["A1020", "A4100", "A1080", "Y31", "Y26", "Y23"],
     ["B1080", "B1100", "B2050", "B1210"],
     "A1020 (lead, cadmium as constituents, not massive metal) / A4100 'Wastes from industrial pollution control "
     "devices for cleaning of industrial off-gases'. Not zinc ash B1080 nor slag.",
     ["lang:en", "ewc-code", "un-number", "packaging", "constituents"], origin="US", destination="MX",
     y_any=["Y31"], un_any=["3077"])

case("b055",
     "Ceneri leggere e residui della depurazione fumi (PSR) da termovalorizzatore di rifiuti urbani, "
     "EER 19 01 13*, trasporto in cisterne silo.",
     "Amber", ["A4100", "A1020"], ["A4100", "A1020", "Y47", "Y18", "Y31", "Y26"], ["B2050"],
     "Flue-gas cleaning residues: A4100 'Wastes from industrial pollution control devices for cleaning of "
     "industrial off-gases'; residues of incineration of household wastes (Y47); 19 01 13* hazardous mirror. "
     "B2050 is coal-fired power plant fly ash only.",
     ["lang:it", "ewc-code", "mirror", "origin"], origin="IT", destination="DE")

case("b056",
     "Incinerator bottom ash (IBA) from a municipal waste-to-energy plant, weathered 3 months, ferrous and "
     "non-ferrous metals removed, LoW 19 01 12, for road sub-base.",
     "Y-list", ["Y47"], ["Y47"], ["B1200", "B1210", "B2050"],
     "Annex II Y47 'Residues arising from the incineration of household wastes'; non-hazardous mirror 19 01 12; "
     "no Annex IX entry covers it (B1200/B1210 are iron and steel slags, B2050 coal fly ash).",
     ["lang:en", "ewc-code", "mirror", "origin"], origin="NL", destination="BE")

case("b057",
     "Converter flue dust from the gas-cleaning system (ESP) of a primary copper smelter: Cu 18 %, As 4 %, "
     "Pb 8 %, Bi, Cd.",
     "Amber", ["A1100"], ["A1100", "A1020", "A1030", "A4100", "Y24", "Y31", "Y26"], ["B1100", "B1070"],
     "A1100 'Dusts and residues from gas cleaning systems of copper smelters'.",
     ["lang:en", "constituents"], origin="CL", destination="JP", y_any=["Y24"])

case("b058",
     "Jarosita procedente de la lixiviación en una planta de zinc electrolítico, con Pb y Cd, LER 11 02 02*, a "
     "granel.",
     "Amber", ["A1070"], ["A1070", "A1020", "Y23", "Y31", "Y26"], ["B1220"],
     "A1070 'Leaching residues from zinc processing, dust and sludges such as jarosite, hematite, etc.'",
     ["lang:es", "ewc-code"], origin="ES")

case("b059",
     "Galvanizing top dross in slabs, Zn 96.5 %, Fe 3 %, from a batch hot-dip galvanizer, solid ingots on pallets.",
     "Green", ["B1100"], ["B1100"], ["A1080"],
     "B1100 'Zinc-containing drosses: Galvanizing slab zinc top dross (>90% Zn)'; 96.5 % Zn.",
     ["lang:en", "threshold", "packaging"], origin="GB", destination="BE")

case("b060",
     "Zinc-bearing residues (mixed ash and skimmings) from a brass foundry: Pb 9 %, Cd 0.6 %; leachable Pb and "
     "Cd above hazardous-waste limits.",
     "Amber", ["A1080", "A1020"], ["A1080", "A1020", "Y31", "Y26", "Y23"], ["B1080", "B1100"],
     "A1080 'Waste zinc residues not included on list B, containing lead and cadmium in concentrations "
     "sufficient to exhibit Annex III characteristics'; B1080 'unless containing Annex I constituents ...'.",
     ["lang:en", "threshold"], origin="FR", destination="DE", y_any=["Y31"])

case("b061",
     "Zinkasche aus der Feuerverzinkung, Zn gesamt 72 %, Pb < 0,2 %, Cd < 0,01 %, Prüfung auf Gasentwicklung "
     "bei Wasserkontakt negativ, AVV 11 05 02, Big Bags.",
     "Green", ["B1080"], ["B1080"], ["A1080"],
     "B1080 'Zinc ash and residues ... unless containing Annex I constituents in concentration such as to exhibit "
     "Annex III characteristics or exhibiting hazard characteristic H4.3': low Pb/Cd, water test negative.",
     ["lang:de", "negation", "threshold", "ewc-code", "packaging"], origin="DE", destination="BE")

case("b062",
     "Alumnium skimmings (white dross) from a primary smelter cast house, Al metal approx. 60 %, no salt flux "
     "used, does not react with water, LoW 10 03 16, steel boxes.",
     "Green", ["B1100"], ["B1100"], [],
     "B1100 'Aluminium skimmings (or skims) excluding salt slag'; no salt flux, not water-reactive, "
     "non-hazardous mirror 10 03 16.",
     ["lang:en", "misspelt", "negation", "mirror", "ewc-code", "packaging"], origin="NO", destination="DE")

case("b063",
     "Laitier granulé de haut fourneau (laitier vitrifié), sec, destiné à la cimenterie, HS 2618.00, vrac par "
     "navire.",
     "Green", ["B1200"], ["B1200", "B1210"], [],
     "B1200 'Granulated slag arising from the manufacture of iron and steel'.",
     ["lang:fr", "hs-code"], origin="FR", destination="ES")

case("b064",
     "Żużel stalowniczy z elektrycznego pieca łukowego (EAF), przekruszony i odżelaziony, frakcja 0-32 mm, "
     "kod 10 02 01.",
     "Green", ["B1210"], ["B1210"], ["A1020", "A4100"],
     "B1210 'Slag arising from the manufacture of iron and steel'. Slag, not furnace dust.",
     ["lang:pl", "ewc-code"], origin="PL", destination="DE")

case("b065",
     "Fracție neseparabilă plastic-aluminiu (PolyAl) rezultată din pretratarea ambalajelor compozite pentru "
     "lichide (tip Tetra Pak) după recuperarea fibrelor de hârtie, fără resturi de conținut, balotată.",
     "Green", ["B3026"], ["B3026"], ["B3020"],
     "B3026 'waste from the pre-treatment of composite packaging for liquids ...: Non-separable "
     "plastic-aluminium fraction'. B3025 (composite packaging) was never adopted.",
     ["lang:ro", "trade-name", "packaging", "negation"], origin="RO", destination="DE")

case("b066",
     "铜冶炼水淬渣磨料：铁含量42%，经化学稳定化处理，按DIN 8201标准加工，用于喷砂除锈，吨袋包装。",
     "Green", ["B2040"], ["B2040"], ["A1100"],
     "B2040 'Slag from copper production, chemically stabilized, having a high iron content (above 20%) and "
     "processed according to industrial specifications (e.g., DIN 4301 and DIN 8201) mainly for construction and "
     "abrasive applications'.",
     ["lang:zh", "threshold", "packaging"], origin="CN", destination="VN")

case("b067",
     "Filter cake from the physico-chemical treatment (D9) of mixed industrial wastewaters at a hazardous-waste "
     "treatment centre: Fe/Zn/Ni hydroxides, Pb and Cd below detection, LoW 19 02 05*.",
     "Y-list", ["Y18"], ["Y18", "Y23"], [],
     "Annex I Y18 'Residues arising from industrial waste disposal operations'; no Annex VIII entry fits "
     "(not galvanic sludge, no lead/cadmium), hazardous by 19 02 05*, so never Green.",
     ["lang:en", "ewc-code", "origin", "negation"], origin="DE", destination="NL")

case("b068",
     "Coal fly ash (class F) from a pulverised-coal power station, LoW 10 01 02, leaching within non-hazardous "
     "limits, dry, pneumatic silo tankers, for cement and concrete.",
     "Green", ["B2050"], ["B2050"], ["A2060", "A4100", "Y47"],
     "B2050 'Coal-fired power plant fly-ash, not included on list A'.",
     ["lang:en", "ewc-code", "negation"], origin="PL", destination="DE")

case("b069",
     "Fly ash from a coal-fired power plant burning high-arsenic lignite: As 180 mg/kg, Se 40 mg/kg; leachate "
     "exceeds hazardous-waste acceptance criteria.",
     "Amber", ["A2060"], ["A2060", "Y24", "Y25"], ["B2050"],
     "A2060 'Coal-fired power plant fly-ash containing Annex I substances in concentrations sufficient to "
     "exhibit Annex III characteristics' (arsenic Y24, selenium Y25).",
     ["lang:en", "threshold", "constituents"], origin="CZ", destination="DE", y_any=["Y24"])

case("b070",
     "Lederverschnitt aus vegetabil gegerbtem Leder (Sattlerei), chromfrei, ohne Biozide, Cr(VI) nicht "
     "nachweisbar, in Ballen.",
     "Green", ["B3090"], ["B3090"], ["A3100"],
     "B3090 'Paring and other wastes of leather ... not containing hexavalent chromium compounds and biocides'.",
     ["lang:de", "negation", "packaging"], origin="DE", destination="IT")

# ---------------------------------------------------------------- construction and demolition, asbestos
case("b071",
     "Gipsplaten (gipskarton) uit de sloop van woningen, gescheiden ingezameld, asbest niet aangetoond, "
     "EURAL 17 08 02.",
     "Green", ["B2040"], ["B2040"], ["A2050", "A2040"],
     "B2040 'Waste gypsum wallboard or plasterboard arising from the demolition of buildings'.",
     ["lang:nl", "negation", "ewc-code", "mirror"], origin="NL", destination="DE")

case("b072",
     "Broken concrete from demolition of a warehouse floor slab, rebar removed, asbestos not detected, no tar, "
     "crushed to 0-63 mm.",
     "Green", ["B2040"], ["B2040"], ["A2050", "A3200"],
     "B2040 'Broken concrete'.",
     ["lang:en", "negation"], origin="BE", destination="NL")

case("b073",
     "Fresado de mezcla bituminosa (RAP) procedente de la rehabilitación de una carretera, sin alquitrán: "
     "HAP < 50 mg/kg, LER 17 03 02.",
     "Green", ["B2130"], ["B2130"], ["A3200"],
     "B2130 'Bituminous material (asphalt waste) from road construction and maintenance, not containing tar'.",
     ["lang:es", "negation", "threshold", "mirror", "ewc-code"], origin="ES", destination="PT")

case("b074",
     "Vybouraná asfaltová směs s obsahem dehtu z rekonstrukce silnice, PAU 2 300 mg/kg, katalogové číslo "
     "17 03 01*.",
     "Amber", ["A3200"], ["A3200", "Y11"], ["B2130"],
     "A3200 'Bituminous material (asphalt waste) from road construction and maintenance, containing tar'.",
     ["lang:cs", "threshold", "ewc-code", "mirror"], origin="CZ", destination="DE")

case("b075",
     "Absestos-cement corrugated roofing sheets from barn demolition, double-wrapped in 1000-gauge polythene on "
     "pallets, UN 2590, LoW 17 06 05*.",
     "Amber", ["A2050"], ["A2050", "Y36"], ["B2040"],
     "A2050 'Waste asbestos (dusts and fibres)'; Y36. Not 'Broken concrete' (B2040).",
     ["lang:en", "misspelt", "un-number", "packaging", "ewc-code"], origin="IE", destination="DE",
     y_any=["Y36"], un_any=["2590"])

case("b076",
     "Flocages et calorifugeages amiantés (amiante friable) retirés lors du désamiantage d'un navire avant "
     "démantèlement, ensachés sous double enveloppe, code 17 06 01*.",
     "Amber", ["A2050"], ["A2050", "Y36"], ["B2030"],
     "A2050 'Waste asbestos (dusts and fibres)'; Y36.",
     ["lang:fr", "packaging", "ewc-code", "origin"], origin="FR", destination="DE", y_any=["Y36"])

case("b077",
     "End-of-life bulk carrier, 42,000 GT, sold 'as is, where is' for recycling. Inventory of Hazardous "
     "Materials Part I: asbestos in gaskets and pipe lagging, PCB in cable insulation, TBT antifouling paint; "
     "approx. 80 m3 residual heavy fuel oil and bilge water on board.",
     "Amber", ["A2050", "A3180", "A4060", "A3020"],
     ["A2050", "A3180", "A4060", "A3020", "Y36", "Y10", "Y8", "Y9"], ["B1010", "B1250"],
     "A ship sent for recycling with asbestos (A2050), PCB (A3180) and oil/water residues (A4060/A3020) on board "
     "is not 'Iron and steel scrap'. Any of these list A entries decides.",
     ["lang:en", "constituents", "origin"], origin="GR", destination="TR")

# ---------------------------------------------------------------- clinical, pharmaceutical, pesticides
case("b078",
     "Infectious clinical waste from hospital wards and operating theatres (sharps, blood-soaked dressings, "
     "microbiological cultures), yellow UN-approved bins, UN 3291, LoW 18 01 03*.",
     "Amber", ["A4020"], ["A4020", "Y1"], [],
     "A4020 'Clinical and related wastes ...' and Y1; infectious substances H6.2.",
     ["lang:en", "un-number", "ewc-code", "hazard-word", "packaging"], origin="LU", destination="DE",
     y_any=["Y1"], h_any=["H6.2"], un_any=["3291"])

case("b079",
     "Expired and returned medicines from community pharmacies (tablets, capsules, syrups; cytotoxics sorted "
     "out), LoW 20 01 32, in 60 L drums.",
     ["Amber", "Y-list"], ["A4010", "Y3"], ["A4010", "Y3"], ["B3060"],
     "Y3 'Waste pharmaceuticals, drugs and medicines'; A4010 'Wastes from the production, preparation and use of "
     "pharmaceutical products' (either reading accepted). The non-starred LoW code does not make them Green: no "
     "Annex IX entry.",
     ["lang:en", "ewc-code", "packaging", "negation"], origin="AT", destination="DE", y_any=["Y3"])

case("b080",
     "Onkoloji servisinden sitotoksik ve sitostatik ilaç atıkları (ilaç kalıntıları, kullanılmış infüzyon "
     "setleri), atık kodu 18 01 08*, kırmızı kutularda.",
     "Amber", ["A4010", "A4020"], ["A4010", "A4020", "Y3", "Y1"], [],
     "A4010 (use of pharmaceutical products) / A4020 (wastes generated in hospitals during treatment of "
     "patients); Y3.",
     ["lang:tr", "ewc-code", "packaging", "origin"], origin="TR", y_any=["Y3"])

case("b081",
     "Baled OCC (old corrugated cardboard) from a hospital's central stores and pharmacy goods-in; no clinical "
     "waste, no wet-strength or waxed board; 12 bales, approx. 6 t.",
     "Green", ["B3020"], ["B3020"], ["A4020", "A4010", "Y1"],
     "B3020 'Waste and scrap of paper or paperboard of: Unbleached paper or paperboard or of corrugated paper or "
     "paperboard', 'provided they are not mixed with hazardous wastes'. Hospital origin alone is not clinical.",
     ["lang:en", "origin", "packaging", "negation"], origin="DK", destination="DE")

case("b082",
     "过期有机磷农药（乐果乳油），含有机溶剂，易燃、有毒，原装铁桶包装，约3吨。",
     "Amber", ["A4030"], ["A4030", "A4140", "A3130", "Y4", "Y37", "Y42"], [],
     "A4030 '... including waste pesticides and herbicides which are off-specification, outdated'; Y4; "
     "organophosphorus (Y37); toxic and flammable (H6.1, H3).",
     ["lang:zh", "hazard-word", "packaging"], origin="CN",
     y_any=["Y4"], h_any=["H6.1", "H3"])

case("b083",
     "Empty HDPE pesticide jerrycans (5-20 L), NOT rinsed, visible residues of chlorpyrifos EC, caps on, "
     "LoW 15 01 10*.",
     "Amber", ["A4130"], ["A4130", "A4030", "A3210", "Y4", "Y37"], ["B3011", "Y48"],
     "A4130 'Waste packages and containers containing Annex I substances in concentrations sufficient to exhibit "
     "Annex III hazard characteristics'. The containers themselves are the waste here.",
     ["lang:en", "packaging", "former-use", "ewc-code"], origin="FR", destination="BE")

# ---------------------------------------------------------------- plastics
case("b084",
     "Clear LDPE stretch/pallet wrap from unpacking incoming goods at a pharmaceutical company's warehouse, no "
     "labels, no product contact, baled, HS 3915.10.",
     "Green", ["B3011"], ["B3011"], ["A4010", "A3210", "Y48"],
     "B3011 plastic waste almost exclusively of one non-halogenated polymer (PE), almost free from "
     "contamination. A pharmaceutical origin does not make it A4010.",
     ["lang:en", "origin", "former-use", "packaging", "hs-code"], origin="CH", destination="DE")

case("b085",
     "Hot-washed clear PET bottle flaks, PVC < 50 ppm, PO < 100 ppm, moisture < 1 %, for bottle-to-bottle "
     "recycling, big bags.",
     "Green", ["B3011"], ["B3011"], ["Y48", "A3210"],
     "B3011: one non-halogenated polymer (PET), almost free from contamination, for recycling.",
     ["lang:en", "misspelt", "threshold", "packaging"], origin="IT", destination="FR")

case("b086",
     "Phế liệu màng nhựa PE sau sản xuất (cuộn lỗi, biên màng), sạch, chỉ một loại nhựa, đã phân loại, đóng kiện.",
     "Green", ["B3011"], ["B3011"], ["Y48"],
     "B3011: post-industrial film of one non-halogenated polymer (PE), clean, sorted.",
     ["lang:vi", "packaging"], origin="VN", destination="KR")

case("b087",
     "Bales of post-consumer rigid packaging consisting only of PE, PP and PET, destined for separate "
     "recycling of each polymer at the receiving plant; non-target material and contamination < 2 %.",
     "Green", ["B3011"], ["B3011"], ["Y48"],
     "B3011 covers mixtures of PE, PP and/or PET provided they are destined for separate recycling of each "
     "material, almost free from contamination.",
     ["lang:en", "threshold"], origin="DE", destination="NL")

case("b088",
     "Kunststoffgemisch aus Gewerbesammlung: PS, ABS, PC und PMMA, gemahlen, unsortiert, Mahlgut in Oktabins.",
     "Y-list", ["Y48"], ["Y48"], ["B3011"],
     "Y48 'Plastic waste, including mixtures of such waste'; a mixture of PS/ABS/PC/PMMA is neither one polymer "
     "nor a PE/PP/PET mixture, so not B3011; nothing hazardous signalled.",
     ["lang:de", "packaging"], origin="DE", destination="PL")

case("b089",
     "Post-industrial offcuts of rigid PVC window profiles, calcium-zinc stabilised (lead-free), white, clean, "
     "crushed.",
     "Y-list", ["Y48"], ["Y48"], ["B3011", "A3210"],
     "PVC is a halogenated polymer, outside B3011's non-halogenated polymers and listed fluorinated polymers; "
     "lead-free and clean, so not A3210: Y48.",
     ["lang:en", "constituents", "negation"], origin="BE", destination="DE")

case("b090",
     "Plástico agrícola usado: film de invernadero y de acolchado de LDPE con tierra, piedras y restos vegetales "
     "(aprox. 30 % en peso), LER 02 01 04, en pacas.",
     "Y-list", ["Y48"], ["Y48"], ["B3011"],
     "Not 'almost free from contamination' (30 % soil), so not B3011; nothing hazardous stated: Y48.",
     ["lang:es", "threshold", "ewc-code", "packaging"], origin="ES", destination="PT")

case("b091",
     "Plasmix: scarti plastici misti dalla selezione degli imballaggi della raccolta differenziata urbana, "
     "EER 19 12 04, in balle.",
     "Y-list", ["Y48", "Y46"], ["Y48", "Y46"], ["B3011"],
     "Mixed plastic residues from household packaging collection: Y48 (mixtures of plastic waste) / Y46 (collected "
     "from households). Not B3011.",
     ["lang:it", "trade-name", "ewc-code", "packaging"], origin="IT", destination="AT")

case("b092",
     "Municipal solid waste, unsorted household refuse, baled and wrapped, LoW 20 03 01, for energy recovery (R1).",
     "Y-list", ["Y46"], ["Y46"], ["B3020", "B3011"],
     "Annex II Y46 'Wastes collected from households'.",
     ["lang:en", "ewc-code", "packaging"], origin="GB", destination="NL")

case("b093",
     "Paliwo alternatywne (RDF/SRF) wytworzone z odpadów komunalnych, frakcja 0-30 mm, kod 19 12 10, bele "
     "owinięte folią.",
     "Y-list", ["Y46"], ["Y46", "Y48"], ["B3011", "B3020", "B3050"],
     "Fuel prepared from municipal (household) waste: Y46 'Wastes collected from households'; no Annex IX entry.",
     ["lang:pl", "trade-name", "ewc-code", "packaging"], origin="PL", destination="DE")

case("b094",
     "Grofvuil uit huishoudens: oude matrassen, banken, kasten en tapijt, EURAL 20 03 07.",
     "Y-list", ["Y46"], ["Y46"], ["B3035", "B3050", "B3030"],
     "Bulky household waste: Y46 'Wastes collected from households'. Mattresses and sofas are not named in any "
     "Annex IX entry and the load is mixed, so not B3035 or B3050.",
     ["lang:nl", "unknown-word", "ewc-code"], origin="NL", destination="DE")

# ---------------------------------------------------------------- textiles, paper, rubber, wood
case("b095",
     "Post-consumer worn clothing and household textiles, unsorted 'original' from charity clothing banks, for "
     "sorting and re-use, HS 6309.00, pressed bales.",
     "Green", ["B3030"], ["B3030"], [],
     "B3030 'Worn clothing and other worn textile articles'.",
     ["lang:en", "trade-name", "hs-code", "packaging"], origin="DE", destination="PL")

case("b096",
     "İplik fabrikasından temiz pamuk iplik döküntüsü ve tarak atığı, balyalı.",
     "Green", ["B3030"], ["B3030"], [],
     "B3030 'Cotton waste (including yarn waste and garnetted stock)'.",
     ["lang:tr", "packaging"], origin="TR", destination="IT")

case("b097",
     "Used carpet tiles (nylon pile, bitumen-free backing) from an office refurbishment, stacked on pallets.",
     "Green", ["B3035"], ["B3035"], ["Y48", "A3200"],
     "B3035 'Waste textile floor coverings, carpets'.",
     ["lang:en", "origin", "negation", "packaging"], origin="NL", destination="BE")

case("b098",
     "Déchets de feldspath (rebuts de carrière et de concassage), en morceaux, forme non dispersible, en vrac.",
     "Green", ["B2010"], ["B2010"], [],
     "B2010 'Wastes from mining operations in non-dispersible form: Feldspar waste'.",
     ["lang:fr"], origin="FR", destination="ES")

case("b099",
     "Altreifen (Pkw-Reifen, Profiltiefe ≥ 3 mm) als Karkassen zur Runderneuerung, ca. 1.200 Stück, 40'-HC.",
     "Green", ["B3140"], ["B3140"], [],
     "B3140 'Waste pneumatic tyres, excluding those destined for Annex IVA operations'; retreading is recovery.",
     ["lang:de"], origin="DE", destination="PL")

case("b100",
     "Source-separated household food and kitchen waste (kerbside food-caddy collection), LoW 20 01 08, for "
     "anaerobic digestion, bulk.",
     "Y-list", ["Y46"], ["Y46"], ["B3060"],
     "Y46 'Wastes collected from households'. B3060 covers 'Wastes arising from agro-food industries', not "
     "household kitchen waste.",
     ["lang:en", "unknown-word", "ewc-code", "origin"], origin="BE", destination="NL")

case("b101",
     "Astilla de madera de palets usados sin tratar (sin pintura, barniz ni protectores), clavos separados "
     "magnéticamente, LER 19 12 07.",
     "Green", ["B3050"], ["B3050"], ["A4040"],
     "B3050 'Untreated cork and wood waste: Wood waste and scrap'; no preservatives, so not A4040.",
     ["lang:es", "former-use", "negation", "mirror", "ewc-code", "unknown-word"], origin="ES", destination="PT")

case("b102",
     "Used creosote-treated railway sleepers (railroad ties), hardwood, from track renewal, LoW 17 02 04*.",
     "Amber", ["A4040"], ["A4040", "Y5", "Y11", "Y39"], ["B3050"],
     "Not 'Untreated' wood (B3050); waste from the use of wood-preserving chemicals: A4040, Y5.",
     ["lang:en", "ewc-code", "former-use"], origin="SE", destination="DE")

case("b103",
     "Postes de madeira tratada com CCA (cobre-crómio-arsénio) retirados da rede elétrica, fora de uso.",
     "Amber", ["A4040", "A1030"], ["A4040", "A1030", "Y5", "Y24", "Y22"], ["B3050"],
     "Wood treated with wood-preserving chemicals (A4040, Y5) containing arsenic (A1030, Y24); not untreated wood.",
     ["lang:pt", "constituents", "former-use"], origin="PT", destination="ES", y_any=["Y24"])

case("b104",
     "Impressoras e fotocopiadoras usadas de escritório, sem cartuchos de toner nem tinteiros, LER 16 02 14, a "
     "granel em contentor.",
     "Y-list", ["Y49"], ["Y49"], ["B1010", "B3011"],
     "Discarded EEE, no hazardous components signalled (16 02 14): Y49. Not metal or plastic scrap.",
     ["lang:pt", "negation", "ewc-code"], origin="PT", destination="ES")

case("b105",
     "Förbrukat granulerat aktivt kol (GAC) från ett kommunalt dricksvattenverk, EWC 19 09 04, i storsäckar.",
     "Green", ["B2060"], ["B2060"], ["A4160"],
     "B2060 'Spent activated carbon ... for example, carbon resulting from the treatment of potable water'.",
     ["lang:sv", "origin", "ewc-code", "packaging"], origin="SE", destination="DE")

case("b106",
     "Spent activated carbon from a solvent-recovery adsorber, loaded with dichloromethane and toluene, "
     "self-heating on exposure to air, LoW 06 13 02*.",
     "Amber", ["A4160"], ["A4160", "Y41", "Y42"], ["B2060"],
     "A4160 'Spent activated carbon not included on list B'; halogenated and non-halogenated solvents, "
     "self-heating (H4.2).",
     ["lang:en", "hazard-word", "ewc-code"], origin="BE", destination="DE", h_any=["H4.2"])

case("b107",
     "Bauxite residue (red mud) filter cake from an alumina refinery, neutralised with seawater to pH 10.2, "
     "moisture 28 %.",
     "Green", ["B2110"], ["B2110"], ["A4090"],
     "B2110 'Bauxite residue (\"red mud\") (pH moderated to less than 11.5)': pH 10.2.",
     ["lang:en", "threshold"], origin="AU", destination="JP")

case("b108",
     "Unneutralised red mud slurry from the Bayer process, 35 % solids, liquor pH 12.9, caustic.",
     ["Amber", "Y-list"], ["A4090", "Y35"], ["A4090", "Y35"], ["B2110", "B2120"],
     "pH not moderated below 11.5, so B2110 does not apply; caustic liquor: A4090 'Waste acidic or basic "
     "solutions' / Y35 'Basic solutions', corrosive H8.",
     ["lang:en", "threshold", "hazard-word"], origin="IE",
     y_any=["Y35"], h_any=["H8"])

case("b109",
     "Spent potassium carbonate solution from a CO2 scrubber, pH 10.9, no heavy metals, not corrosive, not "
     "classified as hazardous, for fertiliser production, road tankers.",
     "Green", ["B2120"], ["B2120"], ["A4090"],
     "B2120 'Waste acidic or basic solutions with a pH greater than 2 and less than 11.5, which are not corrosive "
     "or otherwise hazardous'.",
     ["lang:en", "threshold", "negation"], origin="NL", destination="BE")

case("b110",
     "Spent caustic soda (NaOH approx. 8 %, pH 13.5) from refinery LPG sweetening, contains sodium sulphide and "
     "mercaptides, corrosive, UN 1824.",
     "Amber", ["A4090"], ["A4090", "Y35"], ["B2120"],
     "A4090 'Waste acidic or basic solutions, other than those specified in the corresponding entry on list B'; "
     "pH 13.5 is not below 11.5. Y35, H8.",
     ["lang:en", "threshold", "hazard-word", "un-number"], origin="NL", destination="DE",
     y_any=["Y35"], h_any=["H8"], un_any=["1824"])

case("b111",
     "Acid tar (acid sludge) from sulphuric-acid treatment in used-oil re-refining, pH < 1, corrosive, "
     "LoW 19 11 02*.",
     "Amber", ["A3190"], ["A3190", "Y11", "Y34"], ["B2130"],
     "A3190 'Waste tarry residues (excluding asphalt cements) arising from refining, distillation and any "
     "pyrolitic treatment of organic materials'; Y11; acidic, H8.",
     ["lang:en", "threshold", "hazard-word", "ewc-code"], origin="PL", destination="DE",
     y_any=["Y11"], h_any=["H8"])

# ---------------------------------------------------------------- food, agro, misc.
case("b112",
     "Phụ phẩm cá tra (đầu, xương, nội tạng) từ nhà máy chế biến phi lê, cấp đông, dùng làm nguyên liệu sản "
     "xuất bột cá.",
     "Green", ["B3060"], ["B3060"], [],
     "B3060 'Wastes arising from agro-food industries provided it is not infectious: Fish waste'.",
     ["lang:vi"], origin="VN", destination="TH")

case("b113",
     "Polistirolo espanso (EPS) da imballaggi misto a film in PE e reggette in PP, non selezionato, in sacconi.",
     "Y-list", ["Y48"], ["Y48"], ["B3011"],
     "A PS/PE/PP mixture is not a mixture of only PE, PP and PET, and not one polymer: Y48.",
     ["lang:it", "packaging"], origin="IT", destination="SI")

case("b114",
     "Spent coffee grounds from soluble (instant) coffee production, dewatered, for a biomass boiler or composting.",
     "Green", ["B3060"], ["B3060"], [],
     "B3060 'Other wastes from the agro-food industry excluding by-products which meet ... requirements for human "
     "or animal consumption'.",
     ["lang:en", "unknown-word"], origin="CH", destination="DE")

case("b115",
     "Sorteerresidu van PMD (plastic verpakkingen, metalen verpakkingen en drankkartons) uit huishoudelijke "
     "inzameling, EURAL 19 12 12.",
     "Y-list", ["Y46", "Y48"], ["Y46", "Y48"], ["B3011", "B3026"],
     "Residue of household packaging collection: Y46 (collected from households) / Y48 (mixed plastics). Not "
     "B3011 (mixed, contaminated) nor B3026 (only pre-treatment fractions of liquid cartons).",
     ["lang:nl", "ewc-code", "origin"], origin="NL", destination="DE")

case("b116",
     "Used silver-bearing X-ray films from a hospital radiology archive, in boxes, for silver recovery.",
     "Green", ["B1180"], ["B1180"], ["A4020", "Y1"],
     "B1180 'Waste photographic film containing silver halides and metallic silver'; archive films are not "
     "clinical waste.",
     ["lang:en", "origin", "former-use", "packaging"], origin="FR", destination="BE")

case("b117",
     "Spent photographic fixer (silver thiosulphate solution, Ag approx. 4 g/L) from an X-ray processing unit, "
     "LoW 09 01 04*, 25 L jerrycans.",
     ["Y-list", "Amber"], ["Y16", "A4090"], ["Y16", "A4090"], ["B1180", "B2120"],
     "Y16 'Wastes from production, formulation and use of photographic chemicals and processing materials'; "
     "no specific Annex VIII entry (an acidic solution reading gives A4090). Hazardous (09 01 04*), never Green.",
     ["lang:en", "ewc-code", "packaging"], origin="BE", destination="NL", y_any=["Y16"])

# ---------------------------------------------------------------- catalysts, vehicles
case("b118",
     "Spent hydrodesulphurisation catalyst (CoMo/NiMo on alumina extrudates), unregenerated, contains coke, "
     "sulphides and residual hydrocarbons, self-heating, UN 3190, LoW 16 08 02*, steel drums.",
     "Amber", ["A2030"], ["A2030"], ["B1120", "B1130"],
     "A2030 'Waste catalysts but excluding such wastes specified on list B'; self-heating (H4.2) and "
     "hydrocarbon-laden, so not the Green spent catalyst entries B1120/B1130.",
     ["lang:en", "hazard-word", "un-number", "ewc-code", "mirror", "packaging"], origin="KR", destination="BE",
     h_any=["H4.2"], un_any=["3190"])

case("b119",
     "Spent platinum-rhenium reforming catalyst (Pt 0.3 %, Re 0.3 % on alumina spheres), regenerated and "
     "decoked (C < 0.5 %), cleaned of hydrocarbons, LoW 16 08 01, drums.",
     "Green", ["B1130"], ["B1130", "B1120"], ["A2030"],
     "B1130 'Cleaned spent precious-metal-bearing catalysts'.",
     ["lang:en", "threshold", "ewc-code", "packaging"], origin="IT", destination="DE")

case("b120",
     "已拆解报废乘用车车身：已排空全部液体，已拆除蓄电池、安全气囊、轮胎及含汞部件，压扁打包，废物代码16 01 06。",
     "Green", ["B1250"], ["B1250", "B1010"], ["A1160", "A3020"],
     "B1250 'Waste end-of-life motor vehicles, containing neither liquids nor other hazardous components'.",
     ["lang:zh", "negation", "ewc-code"], origin="JP", destination="KR")


def main():
    ids = [c["id"] for c in CASES]
    assert len(ids) == len(set(ids)) == 120, len(ids)
    assert ids == sorted(ids)
    for c in CASES:
        e = c["expect"]
        assert set(e["top_any"]) <= set(e["codes_any"]), c["id"]
        assert not set(e["forbid"]) & set(e["codes_any"]), c["id"]
        for k in ("y_any",):
            if k in e:
                assert set(e[k]) <= set(e["codes_any"]), c["id"]
        assert any(t.startswith("lang:") for t in c["tags"]), c["id"]
    data = {"about": ABOUT, "cases": CASES}
    with open(OUT, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1, ensure_ascii=False)
        f.write("\n")


if __name__ == "__main__":
    main()
