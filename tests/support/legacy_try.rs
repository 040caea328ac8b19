//! The legacy exception tests write `try` folded, `(try (do ...) (catch
//! $e ...) (catch_all ...))` or `(try (do ...) (delegate $l))`, which the
//! `wast` crate does not parse (it reads the flat `try ... catch ... end`).
//! This rewrites the folded form into the flat one, leaving everything else
//! as it was (comments dropped, so line numbers shift within a file).

/// A piece of text: an atom (a token or a string) or a parenthesised list.
enum Node {
    Atom(String),
    List(Vec<Node>),
}

/// `text` with every folded `try` unfolded.
pub fn unfold(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut at = 0;
    let mut out = String::new();
    while let Some(node) = parse(&chars, &mut at) {
        write(&node, &mut out);
        out.push('\n');
    }
    out
}

fn skip_space_and_comments(c: &[char], at: &mut usize) {
    loop {
        while *at < c.len() && c[*at].is_whitespace() {
            *at += 1;
        }
        if c[*at..].starts_with(&[';', ';']) {
            while *at < c.len() && c[*at] != '\n' {
                *at += 1;
            }
        } else if c[*at..].starts_with(&['(', ';']) {
            let mut depth = 0;
            while *at < c.len() {
                if c[*at..].starts_with(&['(', ';']) {
                    depth += 1;
                    *at += 2;
                } else if c[*at..].starts_with(&[';', ')']) {
                    depth -= 1;
                    *at += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    *at += 1;
                }
            }
        } else {
            return;
        }
    }
}

fn parse(c: &[char], at: &mut usize) -> Option<Node> {
    skip_space_and_comments(c, at);
    if *at >= c.len() || c[*at] == ')' {
        return None;
    }
    if c[*at] == '(' {
        *at += 1;
        let mut items = Vec::new();
        while let Some(n) = parse(c, at) {
            items.push(n);
        }
        *at += 1; // ')'
        return Some(Node::List(items));
    }
    let start = *at;
    if c[*at] == '"' {
        *at += 1;
        while *at < c.len() && c[*at] != '"' {
            *at += if c[*at] == '\\' { 2 } else { 1 };
        }
        *at += 1;
    } else {
        while *at < c.len() && !c[*at].is_whitespace() && c[*at] != '(' && c[*at] != ')' && c[*at] != ';' {
            *at += 1;
        }
    }
    Some(Node::Atom(c[start..*at].iter().collect()))
}

fn head(items: &[Node]) -> Option<&str> {
    match items.first() {
        Some(Node::Atom(a)) => Some(a),
        _ => None,
    }
}

fn write(node: &Node, out: &mut String) {
    match node {
        Node::Atom(a) => out.push_str(a),
        Node::List(items) if head(items) == Some("try") => write_try(items, out),
        Node::List(items) => {
            out.push('(');
            for (i, n) in items.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                write(n, out);
            }
            out.push(')');
        }
    }
}

/// `(try label? blocktype* (do ...) (catch $e ...)* (catch_all ...)?
/// (delegate $l)?)` as flat instructions.
fn write_try(items: &[Node], out: &mut String) {
    out.push_str("try");
    let mut ended = false;
    for n in &items[1..] {
        let clause = match n {
            Node::List(sub) => head(sub).filter(|h| ["do", "catch", "catch_all", "delegate"].contains(h)),
            _ => None,
        };
        let Node::List(sub) = n else {
            out.push(' ');
            write(n, out);
            continue;
        };
        match clause {
            None => {
                out.push(' ');
                write(n, out);
            }
            Some(h) => {
                let skip = match h {
                    "do" => 1,
                    "catch" => {
                        out.push_str(" catch");
                        1
                    }
                    "catch_all" => {
                        out.push_str(" catch_all");
                        1
                    }
                    _ => {
                        out.push_str(" delegate");
                        ended = true;
                        1
                    }
                };
                for x in &sub[skip..] {
                    out.push(' ');
                    write(x, out);
                }
            }
        }
    }
    if !ended {
        out.push_str(" end");
    }
}
