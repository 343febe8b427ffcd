//! In-process re-implementation of `shared/eval/score_classifier.py`: runs
//! every case of a case file through the classifier (as the REST endpoint
//! would) and prints one line per metric, `MISS` lines, and `score: N.NN`.
//!
//! Usage: `cargo run -p classifier --example score_dev -- path/to/classify_dev.json`

use std::collections::{BTreeMap, HashSet};

use classifier::{Classification, Classifier, CodeMatch};
use serde_json::Value;

const METRICS: [&str; 9] = [
    "list_type",
    "pic_required",
    "top1",
    "codes_any",
    "y_any",
    "h_any",
    "un_any",
    "no_forbidden",
    "schema",
];

fn strings(v: &Value, key: &str) -> Vec<String> {
    v.get(key)
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

fn codes(list: &[CodeMatch]) -> Vec<String> {
    list.iter().map(|c| c.code.trim().to_uppercase()).collect()
}

fn digits(s: &str) -> String {
    s.chars().filter(char::is_ascii_digit).collect()
}

fn schema_ok(r: &Classification) -> bool {
    let v = match serde_json::to_value(r) {
        Ok(v) => v,
        Err(_) => return false,
    };
    let keys = [
        "y_codes",
        "a_codes",
        "b_codes",
        "h_codes",
        "un_codes",
        "list_type",
        "pic_required",
        "overall_confidence",
        "disclaimer",
    ];
    keys.iter().all(|k| v.get(*k).is_some())
        && (0.0..=1.0).contains(&r.overall_confidence)
        && !r.disclaimer.is_empty()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args()
        .nth(1)
        .ok_or("usage: score_dev <cases.json>")?;
    let file: Value = serde_json::from_str(&std::fs::read_to_string(&path)?)?;
    let cases = file
        .get("cases")
        .and_then(Value::as_array)
        .ok_or("no cases")?;
    let classifier = Classifier::bundled()?;
    let mut m: BTreeMap<&str, (usize, usize)> = METRICS.iter().map(|k| (*k, (0, 0))).collect();
    let (mut unsafe_pic, mut incoherent) = (0usize, 0usize);
    for c in cases {
        let desc = c.get("description").and_then(Value::as_str).unwrap_or("");
        let r = classifier.classify(desc);
        let e = c.get("expect").ok_or("case without expect")?;
        let s = m.entry("schema").or_default();
        s.0 += usize::from(schema_ok(&r));
        s.1 += 1;
        let (a, b, y, h) = (
            codes(&r.a_codes),
            codes(&r.b_codes),
            codes(&r.y_codes),
            codes(&r.h_codes),
        );
        let all: HashSet<&String> = a.iter().chain(&b).chain(&y).collect();
        let lt = r.list_type.as_str();
        if e.get("pic_required").and_then(Value::as_bool) == Some(true) && !r.pic_required {
            unsafe_pic += 1;
            println!(
                "UNSAFE_PIC {}",
                c.get("id").and_then(Value::as_str).unwrap_or("?")
            );
        }
        let coherent = match lt {
            "Green" => a.is_empty() && !b.is_empty(),
            _ => r.pic_required,
        };
        if !coherent {
            incoherent += 1;
            println!(
                "INCOHERENT {}",
                c.get("id").and_then(Value::as_str).unwrap_or("?")
            );
        }
        let deciding = match lt {
            "Amber" => &a,
            "Green" => &b,
            _ => &y,
        };
        let any = |list: &[String], key: &str| {
            let want = strings(e, key);
            list.iter().any(|x| want.contains(x))
        };
        let mut res: Vec<(&str, bool)> = vec![
            ("list_type", strings(e, "list_type").iter().any(|x| x == lt)),
            (
                "pic_required",
                e.get("pic_required").and_then(Value::as_bool) == Some(r.pic_required),
            ),
            (
                "top1",
                deciding
                    .first()
                    .is_some_and(|x| strings(e, "top_any").contains(x)),
            ),
            (
                "codes_any",
                all.iter().any(|x| strings(e, "codes_any").contains(x)),
            ),
            (
                "no_forbidden",
                !all.iter().any(|x| strings(e, "forbid").contains(x)),
            ),
        ];
        if e.get("y_any").is_some() {
            res.push(("y_any", any(&y, "y_any")));
        }
        if e.get("h_any").is_some() {
            res.push(("h_any", any(&h, "h_any")));
        }
        if e.get("un_any").is_some() {
            let want = strings(e, "un_any");
            res.push((
                "un_any",
                r.un_codes.iter().any(|u| want.contains(&digits(u))),
            ));
        }
        for (k, v) in &res {
            let slot = m.entry(k).or_default();
            slot.0 += usize::from(*v);
            slot.1 += 1;
        }
        let bad: Vec<&str> = res.iter().filter(|(_, v)| !v).map(|(k, _)| *k).collect();
        if !bad.is_empty() {
            println!(
                "MISS {} {:?}: {:?} -> list_type={} pic={} A={:?} B={:?} Y={:?} H={:?} UN={:?}",
                c.get("id").and_then(Value::as_str).unwrap_or("?"),
                bad,
                desc,
                lt,
                r.pic_required,
                a,
                b,
                y,
                h,
                r.un_codes
            );
        }
    }
    let mut rates = Vec::new();
    for k in METRICS {
        let (hit, n) = m.get(k).copied().unwrap_or((0, 0));
        if n > 0 {
            println!("{k}: {hit}/{n} = {:.2}", hit as f64 / n as f64);
            rates.push(hit as f64 / n as f64);
        }
    }
    println!("unsafe_pic: {unsafe_pic}\nincoherent: {incoherent}");
    println!(
        "score: {:.2}",
        rates.iter().sum::<f64>() / rates.len().max(1) as f64
    );
    Ok(())
}
