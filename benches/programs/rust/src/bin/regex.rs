//! regex: five patterns over 4 MB of generated log lines (dates, captures,
//! alternations, a case-insensitive search, e-mail addresses).
use bench_programs::{fnv, word, Lcg, FNV_START};
use regex::Regex;

fn main() {
    let mut rng = Lcg::new(7);
    let mut log = String::new();
    let levels = ["INFO", "WARN", "ERROR", "DEBUG"];
    while log.len() < 4 << 20 {
        let line = format!(
            "2024-{:02}-{:02} {:02}:{:02}:{:02} [{}] user={} id={} mail={}@{}.com path=/{}/{} status={} ms={}\n",
            1 + rng.below(12),
            1 + rng.below(28),
            rng.below(24),
            rng.below(60),
            rng.below(60),
            levels[rng.below(4) as usize],
            word(&mut rng),
            rng.below(100000),
            word(&mut rng),
            word(&mut rng),
            word(&mut rng),
            word(&mut rng),
            [200, 201, 304, 404, 500, 503][rng.below(6) as usize],
            rng.below(2000),
        );
        log.push_str(&line);
    }
    let dates = Regex::new(r"\b\d{4}-(\d{2})-\d{2}\b").unwrap();
    let users = Regex::new(r"user=(\w+) id=(\d+)").unwrap();
    let errors = Regex::new(r"status=(4\d\d|5\d\d) ms=(\d+)").unwrap();
    let words = Regex::new(r"(?i)\b(error|warn)\b").unwrap();
    let mails = Regex::new(r"[a-z]+@[a-z]+\.com").unwrap();
    let mut check = FNV_START;
    for _ in 0..2 {
        let months: u64 = dates.captures_iter(&log).map(|c| c[1].parse::<u64>().unwrap()).sum();
        let ids: u64 = users.captures_iter(&log).map(|c| c[2].parse::<u64>().unwrap() + c[1].len() as u64).sum();
        let slow: u64 = errors.captures_iter(&log).map(|c| c[2].parse::<u64>().unwrap()).sum();
        let levels = words.find_iter(&log).count() as u64;
        let mail_bytes: usize = mails.find_iter(&log).map(|m| m.len()).sum();
        for v in [months, ids, slow, levels, mail_bytes as u64] {
            check = fnv(check, &v.to_le_bytes());
        }
    }
    println!("{}", check >> 1);
}
