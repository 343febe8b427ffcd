"""Builds import_restrictions.json (the engine's form) from
shared/reference/import_restrictions.json. Run from the repository root:
python3 law/data/import_restrictions.py ../shared/reference/import_restrictions.json

The reference's national measures are free text; this script maps each one
the engine uses to what it covers (waste kinds, Basel codes), from which
States, for which operations, and whether it bans or asks for a permit, by
hand (MAP below). Every entry keeps its sources, their tier and the
reference's words. Nothing is added that the reference does not say; dates
given only as a year are read as 1 January and marked `from_precision: year`.
"""
import json
import sys

PLASTIC = ["B3011", "A3210", "Y48"]
EWASTE = ["A1180", "A1181", "B1110", "Y49"]
HOUSEHOLD = ["Y46", "Y47"]
ALL = ["hazardous", "other", "green"]
HAZ = ["hazardous"]

# (iso2, measure index) -> the engine's reading. kind: ban | permit | none.
# text_read False: the reference read only a heading or an announcement.
MAP = {
    ("CN", 0): dict(kind="ban", kinds=ALL, from_="2021-01-01"),
    ("HK", 0): dict(kind="permit", kinds=ALL, from_="2026-12-07", precision="known_on", note="no date in the reference: dated from the day the reference knew it (its as_of)"),
    ("HK", 1): dict(kind="ban", kinds=HAZ, from_states="annex_vii", from_="2006-04-07"),
    ("HK", 2): dict(kind="permit", codes=PLASTIC, from_="2021-01-01"),
    ("HK", 3): dict(kind="permit", codes=EWASTE, from_="2025-01-01"),
    ("VN", 0): dict(kind="ban", kinds=ALL, from_="2021-01-01", note="effective date not confirmed in the sources read; one source says 1 Jan 2021"),
    ("VN", 1): dict(kind="permit", kinds=ALL, from_="2023-05-22", note="date of the Decision; its effective date is not in the reference"),
    ("ID", 0): dict(kind="ban", kinds=HAZ, from_="2009-01-01", precision="year"),
    ("ID", 1): dict(kind="ban", codes=HOUSEHOLD, from_="2008-01-01", precision="year"),
    ("ID", 2): dict(kind="permit", kinds=["other", "green"], from_="2019-01-01", precision="year"),
    ("ID", 3): dict(kind="ban", codes=PLASTIC, from_="2025-01-01", precision="year", text_read=False),
    ("TH", 0): dict(kind="ban", codes=EWASTE, from_="2020-09-15", until="2025-06-23"),
    ("TH", 1): dict(kind="ban", codes=EWASTE, from_="2025-06-24"),
    ("TH", 3): dict(kind="ban", codes=PLASTIC, from_="2025-01-01"),
    ("TH", 4): dict(kind="ban", codes=HOUSEHOLD, from_="2019-07-13"),
    ("MY", 0): [
        dict(kind="ban", kinds=HAZ, from_states="annex_vii_or_non_basel_parties", from_="2023-01-01", precision="year"),
        dict(kind="ban", kinds=HAZ, operations=["disposal"], from_="2023-01-01", precision="year", note="import for final disposal totally prohibited, per the older WTO entry"),
        dict(kind="permit", kinds=HAZ, from_="2023-01-01", precision="year"),
    ],
    ("MY", 1): dict(kind="ban", codes=EWASTE, from_="2026-02-04", text_read=False),
    ("MY", 2): dict(kind="permit", kinds=["green"], codes=PLASTIC, from_="2017-01-01", precision="year"),
    ("PH", 0): [
        dict(kind="ban", kinds=HAZ, operations=["disposal"], from_="1994-03-14"),
        dict(kind="permit", kinds=HAZ, operations=["recovery"], from_="1994-03-14"),
    ],
    ("IN", 0): [
        dict(kind="ban", kinds=["hazardous", "other"], operations=["disposal"], from_="2016-04-04"),
        dict(kind="permit", kinds=["hazardous", "other"], operations=["recovery"], from_="2016-04-04"),
    ],
    ("IN", 1): dict(kind="ban", codes=PLASTIC, from_="2019-03-01", precision="month"),
    ("PK", 0): dict(kind="ban", kinds=HAZ, from_="1997-12-06", text_read=False),
    ("BD", 0): dict(kind="ban", kinds=ALL, from_="2022-04-24"),
    ("LK", 0): dict(kind="permit", kinds=ALL, from_="2026-12-07", precision="known_on", note="no date in the reference: dated from the day the reference knew it (its as_of)"),
    ("TR", 0): dict(kind="ban", codes=PLASTIC, from_="2021-01-01"),
    ("EG", 0): dict(kind="ban", kinds=HAZ, from_="1994-01-01", precision="year"),
    ("NG", 0): dict(kind="ban", kinds=HAZ, from_="1988-01-01", precision="year", text_read=False),
    ("NG", 1): dict(kind="ban", codes=EWASTE, from_="2011-05-25", text_read=False),
    ("GH", 0): dict(kind="permit", kinds=["hazardous", "other"], from_="2016-07-07"),
    ("KE", 0): dict(kind="none", kinds=ALL, from_="1999-01-01", precision="year", note="EMCA 1999: the year of the Act named"),
    ("ZA", 0): dict(kind="permit", kinds=ALL, from_="2012-02-10"),
    ("CI", 0): dict(kind="ban", kinds=HAZ, from_="1988-07-07", text_read=False),
    ("MX", 1): dict(kind="ban", codes=["B3140"], from_="2001-01-01", precision="year"),
    ("GT", 0): dict(kind="ban", kinds=HAZ, codes=HOUSEHOLD, from_="1986-12-19"),
    ("BR", 0): dict(kind="ban", kinds=ALL, from_="2025-01-07"),
    ("BR", 1): dict(kind="permit", kinds=ALL, from_="2012-07-04"),
    ("CL", 0): [
        dict(kind="ban", kinds=HAZ, operations=["disposal"], from_="2016-01-01", precision="year"),
        dict(kind="permit", kinds=HAZ, operations=["recovery"], from_="2016-01-01", precision="year"),
    ],
    ("AR", 0): dict(kind="ban", kinds=ALL, from_="1992-01-24"),
    ("AR", 1): dict(kind="ban", kinds=HAZ, from_="2025-01-02"),
    ("KR", 0): dict(kind="ban", codes=PLASTIC, from_="2020-06-30"),
    ("JP", 0): dict(kind="permit", kinds=ALL, operations=["disposal"], from_="1993-01-01", precision="year"),
    ("TW", 0): dict(kind="ban", kinds=HAZ, codes=HOUSEHOLD, from_="2018-03-31"),
    ("TW", 1): dict(kind="permit", codes=PLASTIC + ["B3020"], from_="2018-10-04"),
    ("AU", 0): dict(kind="permit", kinds=HAZ, from_="1990-01-01", precision="year"),
    ("NZ", 0): [
        dict(kind="ban", kinds=HAZ, codes=HOUSEHOLD, from_states="outside_basel_waigani_oecd", from_="2004-06-28"),
        dict(kind="permit", kinds=HAZ, codes=HOUSEHOLD, from_="2004-06-28"),
    ],
}

TIERS = ["official", "copy_of_official_text", "secondary"]
REGIMES = {"Bamako Convention": "bamako", "Waigani Convention": "waigani",
           "Central American Regional Agreement": "central_america"}


def best_tier(sources):
    tiers = [s["tier"] for s in sources]
    return next(t for t in TIERS if t in tiers)


def derived_regime(m):
    instrument = m.get("instrument", "")
    for name, key in REGIMES.items():
        if instrument.startswith(name.split(" Convention")[0].split(" Regional")[0]):
            return key
    raise SystemExit(f"no regime for {instrument}")


def entry(iso, name, m, r):
    sources = [{k: s[k] for k in ("url", "kind", "date", "tier")} for s in m["sources"]]
    out = {
        "state": iso,
        "state_name": name,
        "kind": r["kind"],
        "what": m["what"],
        "instrument": m.get("instrument") or "(instrument not identified)",
        "waste_scope": m.get("waste_scope"),
        "covers": {"kinds": r.get("kinds", []), "codes": r.get("codes", [])},
        "operations": r.get("operations"),
        "from_states": r.get("from_states", "any"),
        "in_force_from": r["from_"],
        "in_force_until": r.get("until"),
        "from_as_given": m.get("from"),
        "from_precision": r.get("precision", "day"),
        "exceptions": m.get("exceptions", []),
        "derived_from_treaty_membership": False,
        "text_read": r.get("text_read", True),
        "trust": best_tier(sources),
        "sources": sources,
    }
    if r.get("note"):
        out["note"] = r["note"]
    return out


def main(path):
    ref = json.load(open(path))
    measures = []
    for s in ref["national"]:
        for i, m in enumerate(s["measures"]):
            if m.get("derived_from_treaty_membership"):
                regime = derived_regime(m)
                sources = [{k: x[k] for k in ("url", "kind", "date", "tier")} for x in m["sources"]]
                measures.append({
                    "state": s["iso2"], "state_name": s["state"], "kind": "ban",
                    "what": m["what"], "instrument": m["instrument"], "waste_scope": m.get("waste_scope"),
                    "covers": {"kinds": HAZ, "codes": []}, "operations": None,
                    "from_states": "non_members:" + regime,
                    "applies_to_imports_from": m.get("applies_to_imports_from"),
                    "in_force_from": m["from"], "in_force_until": None, "from_as_given": m["from"],
                    "from_precision": "day", "exceptions": [],
                    "derived_from_treaty_membership": True, "text_read": True,
                    "trust": best_tier(sources), "sources": sources,
                })
                continue
            readings = MAP.get((s["iso2"], i))
            if readings is None:
                continue
            for r in readings if isinstance(readings, list) else [readings]:
                measures.append(entry(s["iso2"], s["state"], m, r))
    regimes = {}
    for r in ref["regional"]:
        key = REGIMES.get(r["regime"])
        if key:
            regimes[key] = {
                "name": r["regime"], "core_prohibition": r["core_prohibition"],
                "members": [m["iso2"] for m in r["members"] if m.get("party")],
                "members_note": "membership from IEADB, data to mid-2021: later accessions are missing",
                "sources": [{k: x[k] for k in ("url", "kind", "date", "tier")} for x in r["sources"]],
            }
    researched = sorted({s["iso2"] for s in ref["national"] if s.get("basis", "").startswith("national")})
    out = {
        "about": "The engine's reading of shared/reference/import_restrictions.json (harvested 2026-12-07; see IMPORT_RESTRICTIONS.md there for its method and trust notes), built by law/data/import_restrictions.py. Each measure: what it covers (waste kinds hazardous/other/green, or Basel codes), from which States, for which operations, whether it bans or needs a permit, when, and its sources with their tier (official, copy_of_official_text, secondary). A ban whose best source is secondary, that is known only from treaty membership, or whose operative text was not read makes the answer unknown, never false. Dates given only as a year are read as 1 January (from_precision: year); from_precision known_on: the reference gives no date, so the measure is dated from the reference's as_of. Not legal advice.",
        "reference_as_of": ref["about"]["as_of"],
        "where_to_check": "The import restrictions Parties notified under Articles 4(1)(a) and 13 (Basel Convention Secretariat, basel.int, 'Country restrictions' tables), and the competent authority of the State of import.",
        "researched": researched,
        "regimes": regimes,
        "measures": measures,
    }
    json.dump(out, sys.stdout, ensure_ascii=False, indent=1)
    print()


main(sys.argv[1])
