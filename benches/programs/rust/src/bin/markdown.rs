//! pulldown-cmark: a 1 MB generated Markdown document (headings, lists,
//! emphasis, links, code blocks, tables, block quotes) rendered to HTML,
//! four times.
use bench_programs::{fnv, word, Lcg, FNV_START};
use pulldown_cmark::{html, Options, Parser};

fn sentence(rng: &mut Lcg) -> String {
    let mut s = String::new();
    for i in 0..(5 + rng.below(12)) {
        let w = word(rng);
        match rng.below(10) {
            0 => s.push_str(&format!("*{w}*")),
            1 => s.push_str(&format!("**{w}**")),
            2 => s.push_str(&format!("`{w}`")),
            3 => s.push_str(&format!("[{w}](https://example.com/{w}/{i})")),
            _ => s.push_str(w),
        }
        s.push(' ');
    }
    s
}

fn main() {
    let mut rng = Lcg::new(13);
    let mut doc = String::new();
    while doc.len() < 1 << 20 {
        match rng.below(7) {
            0 => doc.push_str(&format!("## {}\n\n", sentence(&mut rng))),
            1 => {
                for _ in 0..(2 + rng.below(5)) {
                    doc.push_str(&format!("- {}\n", sentence(&mut rng)));
                }
                doc.push('\n');
            }
            2 => doc.push_str(&format!("```\nfn {}() {{ {} }}\n```\n\n", word(&mut rng), sentence(&mut rng))),
            3 => {
                doc.push_str("| a | b | c |\n|---|:-:|--:|\n");
                for _ in 0..(2 + rng.below(6)) {
                    doc.push_str(&format!("| {} | {} | {} |\n", word(&mut rng), rng.below(1000), word(&mut rng)));
                }
                doc.push('\n');
            }
            4 => doc.push_str(&format!("> {}\n\n", sentence(&mut rng))),
            _ => doc.push_str(&format!("{}\n{}\n\n", sentence(&mut rng), sentence(&mut rng))),
        }
    }
    let mut check = FNV_START;
    for _ in 0..4 {
        let mut out = String::with_capacity(doc.len() * 2);
        html::push_html(&mut out, Parser::new_ext(&doc, Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH));
        check = fnv(check, out.as_bytes());
    }
    println!("{}", check >> 1);
}
