//! prost: 20,000 messages of a schema defined by derive (scalars, varints
//! and zigzag varints, strings, bytes, packed repeated fields, nested and
//! repeated messages) encoded once, then decoded 40 times; the check value
//! folds fields of every decoded message.
use bench_programs::{fnv, word, Lcg, FNV_START};
use prost::Message;

#[derive(Clone, PartialEq, Message)]
struct Order {
    #[prost(uint64, tag = "1")]
    id: u64,
    #[prost(string, tag = "2")]
    customer: String,
    #[prost(sint32, repeated, tag = "3")]
    deltas: Vec<i32>,
    #[prost(message, repeated, tag = "4")]
    lines: Vec<Line>,
    #[prost(bytes = "vec", tag = "5")]
    token: Vec<u8>,
    #[prost(double, tag = "6")]
    total: f64,
    #[prost(bool, tag = "7")]
    paid: bool,
    #[prost(message, optional, tag = "8")]
    address: Option<Address>,
}

#[derive(Clone, PartialEq, Message)]
struct Line {
    #[prost(uint32, tag = "1")]
    sku: u32,
    #[prost(int64, tag = "2")]
    quantity: i64,
    #[prost(fixed32, tag = "3")]
    price: u32,
    #[prost(string, tag = "4")]
    note: String,
}

#[derive(Clone, PartialEq, Message)]
struct Address {
    #[prost(string, tag = "1")]
    city: String,
    #[prost(sint64, tag = "2")]
    lat: i64,
    #[prost(sint64, tag = "3")]
    lon: i64,
}

fn order(rng: &mut Lcg, id: u64) -> Order {
    let lines = (0..rng.below(6))
        .map(|_| Line {
            sku: rng.below(1 << 20) as u32,
            quantity: rng.below(1000) as i64 - 10,
            price: rng.next_u64() as u32,
            note: word(rng).to_string(),
        })
        .collect();
    Order {
        id: id << rng.below(40),
        customer: format!("{} {}", word(rng), word(rng)),
        deltas: (0..rng.below(24)).map(|_| rng.below(1 << 21) as i32 - (1 << 20)).collect(),
        lines,
        token: (0..rng.below(40)).map(|_| rng.next_u64() as u8).collect(),
        total: rng.below(1_000_000) as f64 / 100.0,
        paid: rng.below(2) == 0,
        address: (rng.below(4) != 0).then(|| Address {
            city: word(rng).to_string(),
            lat: rng.below(180_000_000) as i64 - 90_000_000,
            lon: rng.below(360_000_000) as i64 - 180_000_000,
        }),
    }
}

fn main() {
    let mut rng = Lcg::new(29);
    // Length-delimited messages in one buffer, as a stream of them is sent.
    let mut wire = Vec::new();
    for id in 0..20_000 {
        order(&mut rng, id).encode_length_delimited(&mut wire).unwrap();
    }
    let mut check = fnv(FNV_START, &wire);
    for _ in 0..40 {
        let mut buf = &wire[..];
        let mut acc = 0u64;
        while !buf.is_empty() {
            let o = Order::decode_length_delimited(&mut buf).unwrap();
            acc = acc.wrapping_mul(31).wrapping_add(o.id ^ o.customer.len() as u64);
            acc = acc.wrapping_add(o.deltas.iter().map(|&d| d as i64 as u64).fold(0, u64::wrapping_add));
            for l in &o.lines {
                acc = acc.wrapping_add(l.sku as u64 ^ l.quantity as u64 ^ l.price as u64 ^ l.note.len() as u64);
            }
            acc = acc.wrapping_add(o.token.len() as u64 + o.total.to_bits() + o.paid as u64);
            if let Some(a) = &o.address {
                acc = acc.wrapping_add(a.city.len() as u64 ^ a.lat as u64 ^ a.lon as u64);
            }
        }
        check = fnv(check, &acc.to_le_bytes());
    }
    println!("{}", check >> 1);
}
