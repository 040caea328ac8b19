//! serde_json: 20,000 records serialised from Rust types, parsed back as
//! untyped values, walked, and parsed again into the types, twice.
use bench_programs::{fnv, word, Lcg, FNV_START};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize)]
struct Record {
    id: u64,
    name: String,
    tags: Vec<String>,
    score: f64,
    active: bool,
    location: Location,
}

#[derive(Serialize, Deserialize)]
struct Location {
    city: String,
    lat: f64,
    lon: f64,
}

fn walk(v: &serde_json::Value, acc: &mut u64) {
    match v {
        serde_json::Value::Object(m) => m.iter().for_each(|(k, v)| {
            *acc = acc.wrapping_add(k.len() as u64);
            walk(v, acc)
        }),
        serde_json::Value::Array(a) => a.iter().for_each(|v| walk(v, acc)),
        serde_json::Value::String(s) => *acc = acc.wrapping_add(s.len() as u64),
        serde_json::Value::Number(n) => *acc = acc.wrapping_add(n.as_f64().unwrap_or(0.0) as u64),
        serde_json::Value::Bool(b) => *acc += *b as u64,
        serde_json::Value::Null => {}
    }
}

fn main() {
    let mut rng = Lcg::new(11);
    let records: Vec<Record> = (0..20000)
        .map(|id| Record {
            id,
            name: format!("{} {}", word(&mut rng), word(&mut rng)),
            tags: (0..rng.below(6)).map(|_| word(&mut rng).to_string()).collect(),
            score: rng.below(1_000_000) as f64 / 997.0,
            active: rng.below(2) == 1,
            location: Location {
                city: word(&mut rng).to_string(),
                lat: rng.below(180_000) as f64 / 1000.0 - 90.0,
                lon: rng.below(360_000) as f64 / 1000.0 - 180.0,
            },
        })
        .collect();
    let mut check = FNV_START;
    for _ in 0..2 {
        let text = serde_json::to_string(&records).unwrap();
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        let mut acc = 0u64;
        walk(&value, &mut acc);
        let back: Vec<Record> = serde_json::from_str(&text).unwrap();
        let pretty = serde_json::to_string_pretty(&back[..1000]).unwrap();
        check = fnv(check, text.as_bytes());
        check = fnv(check, &acc.to_le_bytes());
        check = fnv(check, pretty.as_bytes());
    }
    println!("{}", check >> 1);
}
